#include "workspace_fingerprint.h"

#include <string_view>
#include <sys/stat.h>

namespace ralph::loop {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t k_fnv_offset = 1469598103934665603ULL;
constexpr std::uint64_t k_fnv_prime = 1099511628211ULL;

std::uint64_t fnv1a(std::uint64_t hash, std::string_view bytes) {
  for (char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= k_fnv_prime;
  }
  return hash;
}

std::uint64_t fnv1a(std::uint64_t hash, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) {
    hash ^= (value >> (i * 8)) & 0xFF;
    hash *= k_fnv_prime;
  }
  return hash;
}

// Spreads an entry hash over all bits, so summing entries (order-independent) stays sensitive.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

} // namespace

Fingerprint fingerprint_workspace(const fs::path& workspace, std::size_t max_entries) {
  Fingerprint out;
  std::error_code ec;
  fs::recursive_directory_iterator it(workspace, fs::directory_options::skip_permission_denied, ec);
  std::size_t entries = 0;
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (++entries > max_entries) {
      out.complete = false;
      return out;
    }
    const fs::path& path = it->path();
    const std::string relative = path.lexically_relative(workspace).generic_string();
    if (it.depth() == 0 && (relative == ".git" || relative == ".ralph")) {
      it.disable_recursion_pending();
      continue;
    }
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) {
      continue; // vanished between listing and stat: the next walk sees the difference
    }
    std::uint64_t entry = fnv1a(k_fnv_offset, relative);
    entry = fnv1a(entry, static_cast<std::uint64_t>(info.st_mode));
    entry = fnv1a(entry, static_cast<std::uint64_t>(info.st_size));
    entry = fnv1a(entry, static_cast<std::uint64_t>(info.st_mtim.tv_sec));
    entry = fnv1a(entry, static_cast<std::uint64_t>(info.st_mtim.tv_nsec));
    out.hash += mix(entry);
  }
  if (ec) {
    out.complete = false;
  }
  return out;
}

} // namespace ralph::loop
