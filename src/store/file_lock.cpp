#include "file_lock.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace ralph::store {

namespace {

// The lock file is never removed: unlinking it while another process waits on the old inode
// would let two holders in at once.
Result<int> open_lock_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    return fail(ErrorKind::io,
                fmt::format("cannot open lock file {}: {}", path.string(), std::strerror(errno)));
  }
  return fd;
}

// flock(fd, operation), retried when a signal interrupts it; the errno of a failure, else 0.
int lock(int fd, int operation) {
  while (::flock(fd, operation) != 0) {
    if (errno != EINTR) {
      return errno;
    }
  }
  return 0;
}

} // namespace

Result<FileLock> FileLock::acquire(const std::filesystem::path& path) {
  TRY_ASSIGN(const int fd, open_lock_file(path));
  if (const int error_number = lock(fd, LOCK_EX); error_number != 0) {
    ::close(fd);
    return fail(ErrorKind::io,
                fmt::format("cannot lock {}: {}", path.string(), std::strerror(error_number)));
  }
  return FileLock(fd);
}

Result<std::optional<FileLock>> FileLock::try_acquire(const std::filesystem::path& path) {
  TRY_ASSIGN(const int fd, open_lock_file(path));
  const int error_number = lock(fd, LOCK_EX | LOCK_NB);
  if (error_number == 0) {
    return std::optional<FileLock>(FileLock(fd));
  }
  ::close(fd);
  if (error_number == EWOULDBLOCK) {
    return std::optional<FileLock>();
  }
  return fail(ErrorKind::io,
              fmt::format("cannot lock {}: {}", path.string(), std::strerror(error_number)));
}

Result<void> FileLock::write_holder(std::string_view text) {
  if (::ftruncate(m_fd, 0) != 0 ||
      ::pwrite(m_fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    return fail(ErrorKind::io, fmt::format("cannot write the lock file: {}", std::strerror(errno)));
  }
  return {};
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
    // Whoever finds the file next must not read a holder that is gone. Closing the only
    // descriptor of the open file description releases the lock.
    (void)!::ftruncate(m_fd, 0);
    ::close(m_fd);
    m_fd = -1;
  }
}

} // namespace ralph::store
