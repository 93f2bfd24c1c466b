#include "file_access.h"

#include "unique_fd.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ralph::tools {
namespace {

tl::unexpected<Error> io_failure(std::string_view what, std::string_view shown) {
  return fail(ErrorKind::tool, fmt::format("cannot {} {}: {}", what, shown, std::strerror(errno)));
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// A name no other writer (thread or process) picks: pid plus a process-wide counter.
std::filesystem::path temporary_name_for(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  return path.parent_path() / fmt::format(".{}.ralph-tmp-{}-{}", path.filename().string(),
                                          ::getpid(), counter.fetch_add(1));
}

} // namespace

bool looks_binary(std::string_view head) {
  return head.substr(0, k_binary_probe_bytes).find('\0') != std::string_view::npos;
}

Result<std::string> read_small_file(const std::filesystem::path& path, std::size_t max_bytes,
                                    std::string_view shown) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below).
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) {
    return io_failure("read", shown);
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    return io_failure("read", shown);
  }
  if (!S_ISREG(info.st_mode)) {
    return fail(ErrorKind::tool, fmt::format("{} is not a regular file", shown));
  }
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    return fail(ErrorKind::tool,
                fmt::format("{} is too large ({}; the limit is {})", shown,
                            describe_size(static_cast<std::uint64_t>(info.st_size)),
                            describe_size(max_bytes)));
  }
  std::string content;
  content.resize(static_cast<std::size_t>(info.st_size));
  std::size_t filled = 0;
  while (true) {
    if (filled == content.size()) {
      // The file may have grown since fstat; one more byte tells.
      content.resize(std::min(content.size() * 2 + 4096, max_bytes + 1));
    }
    const ssize_t n = ::read(fd.get(), content.data() + filled, content.size() - filled);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return io_failure("read", shown);
    }
    if (n == 0) {
      break;
    }
    filled += static_cast<std::size_t>(n);
    if (filled > max_bytes) {
      return fail(ErrorKind::tool, fmt::format("{} is too large (the limit is {})", shown,
                                               describe_size(max_bytes)));
    }
  }
  content.resize(filled);
  return content;
}

Result<void> write_file_atomically(const std::filesystem::path& path, std::string_view content,
                                   std::string_view shown) {
  struct stat existing {};
  const bool exists = ::stat(path.c_str(), &existing) == 0;
  const std::filesystem::path temporary = temporary_name_for(path);
  // 0666 lets the umask decide a new file's permissions, as any editor would.
  UniqueFd fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
  if (!fd.valid()) {
    return io_failure("write", shown);
  }
  const bool written = write_all(fd.get(), content) &&
                       (!exists || ::fchmod(fd.get(), existing.st_mode & 07777) == 0);
  const int saved_errno = errno;
  fd.reset();
  // No fsync: the rename is atomic for concurrent readers, which is what matters here, and a
  // sync per edit would cost more than the rest of the tool call.
  if (!written || ::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error_number = written ? errno : saved_errno;
    ::unlink(temporary.c_str());
    errno = error_number;
    return io_failure("write", shown);
  }
  return {};
}

std::vector<std::filesystem::directory_entry> sorted_entries(const std::filesystem::path& dir,
                                                             bool& readable) {
  std::error_code ec;
  std::vector<std::filesystem::directory_entry> entries;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name != ".git" && name != ".ralph") {
      entries.push_back(*it);
    }
  }
  readable = !ec;
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
  return entries;
}

std::string describe_size(std::uint64_t bytes) {
  if (bytes < 1024) {
    return fmt::format("{} bytes", bytes);
  }
  if (bytes < std::uint64_t{1024} * 1024) {
    return fmt::format("{:.1f} KB", static_cast<double>(bytes) / 1024.0);
  }
  return fmt::format("{:.1f} MB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

} // namespace ralph::tools
