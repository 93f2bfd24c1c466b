#include "workspace_fingerprint.h"

#include <dirent.h>
#include <fcntl.h>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace ralph::loop {
namespace {

constexpr std::uint64_t k_fnv_offset = 1469598103934665603ULL;
constexpr std::uint64_t k_fnv_prime = 1099511628211ULL;

std::uint64_t fnv1a(std::uint64_t hash, std::string_view bytes) {
  for (char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= k_fnv_prime;
  }
  return hash;
}

// Spreads a value over all bits, so summing entries (order-independent) stays sensitive.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

std::uint64_t entry_hash(std::uint64_t path_hash, const struct stat& info) {
  std::uint64_t h = path_hash;
  for (const auto value :
       {static_cast<std::uint64_t>(info.st_mode), static_cast<std::uint64_t>(info.st_size),
        static_cast<std::uint64_t>(info.st_ino), static_cast<std::uint64_t>(info.st_mtim.tv_sec),
        static_cast<std::uint64_t>(info.st_mtim.tv_nsec),
        static_cast<std::uint64_t>(info.st_ctim.tv_sec),
        static_cast<std::uint64_t>(info.st_ctim.tv_nsec)}) {
    h = mix(h ^ value);
  }
  return h;
}

// Walks one directory by descriptor (no path strings are built): readdir and fstatat relative
// to the open directory, adding each entry to `out`. `path_hash` is the hash of the directory's
// relative path; a child's is derived from it and the child's name, so paths are hashed once,
// not once per level. Takes `dir_fd` over and closes it.
void walk(int dir_fd, std::uint64_t path_hash, bool top, Fingerprint& out) {
  DIR* dir = ::fdopendir(dir_fd);
  if (dir == nullptr) {
    ::close(dir_fd);
    return;
  }
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") {
      continue;
    }
    if (top && (name == ".git" || name == ".ralph")) {
      continue;
    }
    struct stat info {};
    if (::fstatat(dir_fd, entry->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0) {
      continue; // vanished between listing and stat: the next walk sees the difference
    }
    const std::uint64_t child_hash = fnv1a(fnv1a(path_hash, "/"), name);
    out.hash += entry_hash(child_hash, info);
    ++out.entries;
    if (S_ISDIR(info.st_mode)) {
      const int child =
          ::openat(dir_fd, entry->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child >= 0) {
        walk(child, child_hash, false, out);
      }
    }
  }
  ::closedir(dir); // closes dir_fd too
}

} // namespace

Fingerprint fingerprint_workspace(const std::filesystem::path& workspace) {
  Fingerprint out;
  const int fd = ::open(workspace.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return out;
  }
  walk(fd, k_fnv_offset, true, out);
  return out;
}

} // namespace ralph::loop
