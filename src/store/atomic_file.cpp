#include "atomic_file.h"

#include "ralph/store/trace_writer.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace ralph::store {
namespace {

// Closes the descriptor on every path out of a scope.
class Fd {
public:
  explicit Fd(int fd) : m_fd(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { close(); }
  int get() const { return m_fd; }
  bool valid() const { return m_fd >= 0; }
  // Returns false when close(2) reports an error (which may be a delayed write error).
  bool close() {
    if (m_fd < 0) {
      return true;
    }
    const bool closed = ::close(m_fd) == 0;
    m_fd = -1;
    return closed;
  }

private:
  int m_fd;
};

tl::unexpected<Error> io_failure(std::string_view what, const std::filesystem::path& path,
                                 int error_number) {
  return fail(ErrorKind::io,
              fmt::format("cannot {} {}: {}", what, path.string(), std::strerror(error_number)));
}

bool write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      errno = n == 0 ? EIO : errno;
      return false;
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// A hidden name next to `path`, so a scan for `iter-*.json` never picks up a temporary and a
// crash leaves at most a dot-file behind. The random part makes it unique across threads and
// processes; O_EXCL guarantees it.
std::filesystem::path temporary_name_for(const std::filesystem::path& path, std::uint64_t random) {
  return path.parent_path() / fmt::format(".{}.tmp-{:016x}", path.filename().string(), random);
}

// Makes the rename itself durable. Best effort: some file systems refuse fsync on a folder, and
// the content is already safe.
void sync_folder(const std::filesystem::path& folder) {
  Fd fd(::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.valid()) {
    ::fsync(fd.get());
  }
}

} // namespace

Result<void> write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  struct stat existing {};
  const bool exists = ::stat(path.c_str(), &existing) == 0;
  std::random_device random;
  std::filesystem::path temporary;
  int raw_fd = -1;
  for (int attempt = 0; attempt < 100 && raw_fd < 0; ++attempt) {
    temporary = temporary_name_for(path, (std::uint64_t{random()} << 32) | random());
    // 0666 lets the umask decide a new file's permissions, as any editor would.
    raw_fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (raw_fd < 0 && errno != EEXIST) {
      break;
    }
  }
  if (raw_fd < 0) {
    return io_failure("write", path, errno);
  }
  Fd fd(raw_fd);
  // A replaced file keeps its permissions (a hand-edited memory file may be private).
  bool written = write_all(fd.get(), content) &&
                 (!exists || ::fchmod(fd.get(), existing.st_mode & 07777) == 0) &&
                 ::fsync(fd.get()) == 0;
  int error_number = errno;
  if (written && !fd.close()) {
    written = false;
    error_number = errno;
  }
  if (!written || ::rename(temporary.c_str(), path.c_str()) != 0) {
    if (written) {
      error_number = errno;
    }
    ::unlink(temporary.c_str());
    return io_failure("write", path, error_number);
  }
  sync_folder(path.parent_path());
  return {};
}

Result<std::optional<std::string>> read_file_if_exists(const std::filesystem::path& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) {
      return std::optional<std::string>();
    }
    return io_failure("read", path, errno);
  }
  std::string content;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return io_failure("read", path, errno);
    }
    if (n == 0) {
      break;
    }
    content.append(buffer, static_cast<std::size_t>(n));
  }
  return std::optional<std::string>(std::move(content));
}

} // namespace ralph::store
