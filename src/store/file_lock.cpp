#include "file_lock.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace ralph::store {

Result<FileLock> FileLock::acquire(const std::filesystem::path& path) {
  // The lock file is never removed: unlinking it while another process waits on the old inode
  // would let two holders in at once.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    return fail(ErrorKind::io,
                fmt::format("cannot open lock file {}: {}", path.string(), std::strerror(errno)));
  }
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      const int error_number = errno;
      ::close(fd);
      return fail(ErrorKind::io,
                  fmt::format("cannot lock {}: {}", path.string(), std::strerror(error_number)));
    }
  }
  return FileLock(fd);
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    release();
    m_fd = std::exchange(other.m_fd, -1);
  }
  return *this;
}

FileLock::~FileLock() {
  release();
}

void FileLock::release() {
  if (m_fd >= 0) {
    // Closing the only descriptor of the open file description releases the lock.
    ::close(m_fd);
    m_fd = -1;
  }
}

} // namespace ralph::store
