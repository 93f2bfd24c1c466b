#pragma once

#include "ralph/core/error.h"

#include <filesystem>
#include <utility>

namespace ralph::store {

// An exclusive flock(2) on a lock file, held until the object is destroyed (every path out of a
// scope releases it). The lock belongs to this object's own open file description, so two
// FileLocks on one path exclude each other across threads as well as processes. Move-only.
class FileLock {
public:
  // Creates `path` if needed and blocks until the lock is granted.
  static Result<FileLock> acquire(const std::filesystem::path& path);

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
