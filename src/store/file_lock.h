#pragma once

#include "ralph/core/error.h"

#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>

namespace ralph::store {

// An exclusive flock(2) on a lock file, held until the object is destroyed (every path out of a
// scope releases it). The lock belongs to this object's own open file description, so two
// FileLocks on one path exclude each other across threads as well as processes. Move-only.
class FileLock {
public:
  // Creates `path` if needed and blocks until the lock is granted.
  static Result<FileLock> acquire(const std::filesystem::path& path);
  // Creates `path` if needed and takes the lock if it is free; nullopt when another holder has
  // it (this never waits).
  static Result<std::optional<FileLock>> try_acquire(const std::filesystem::path& path);

  // Replaces the lock file's content with `text` (who holds it, for those who find it held); the
  // content is emptied again when the lock is released.
  Result<void> write_holder(std::string_view text);

  FileLock(FileLock&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

private:
  explicit FileLock(int fd) : m_fd(fd) {}
  void release();

  int m_fd = -1;
};

} // namespace ralph::store
