#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ralph::notify {

// HMAC-SHA256 of `message` under `key`, as 64 lower-case hex digits.
std::string hmac_sha256_hex(std::string_view key, std::string_view message);

// The X-Ralph-Signature-256 value of a delivery: "sha256=" and the HMAC-SHA256, under `key`, of
// the timestamp's decimal digits, a dot and the body exactly as sent ("1767225600.{...}").
std::string signature_header(std::string_view key, std::int64_t timestamp, std::string_view body);

} // namespace ralph::notify
