#include "ralph/notify/signature.h"

#include <fmt/format.h>

#include <array>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdexcept>

namespace ralph::notify {

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  const unsigned char* made = HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
                                   reinterpret_cast<const unsigned char*>(message.data()),
                                   message.size(), digest.data(), &size);
  if (made == nullptr) {
    // Only when OpenSSL cannot allocate: nothing a caller could do about it.
    throw std::runtime_error("HMAC-SHA256 failed");
  }
  std::string hex;
  hex.reserve(size * 2);
  for (unsigned int i = 0; i < size; ++i) {
    hex += fmt::format("{:02x}", digest[i]);
  }
  return hex;
}

std::string signature_header(std::string_view key, std::int64_t timestamp, std::string_view body) {
  return "sha256=" + hmac_sha256_hex(key, fmt::format("{}.{}", timestamp, body));
}

} // namespace ralph::notify
