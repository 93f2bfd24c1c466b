#include "ralph/rlm/mapped_document.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace ralph::rlm {
namespace {

Error open_error(const std::filesystem::path& path, const char* what, int saved_errno) {
  Error e;
  e.kind = ErrorKind::io;
  e.message = fmt::format("cannot {} document {}: {}", what, path.string(),
                          saved_errno != 0 ? std::strerror(saved_errno) : "not a regular file");
  e.file = path.string();
  return e;
}

// Closes the descriptor on every path out of open(): the mapping keeps the file alive by itself.
class FdCloser {
public:
  explicit FdCloser(int fd) : m_fd(fd) {}
  ~FdCloser() { ::close(m_fd); }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

private:
  int m_fd;
};

} // namespace

Result<MappedDocument> MappedDocument::open(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return fail(open_error(path, "open", errno));
  }
  const FdCloser closer(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    return fail(open_error(path, "stat", errno));
  }
  // A directory or a device opens fine but cannot be mapped as a document.
  if (!S_ISREG(info.st_mode)) {
    return fail(open_error(path, "map", 0));
  }
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size == 0) {
    // mmap refuses a zero length; an empty file is a valid empty document.
    return MappedDocument(path, nullptr, 0);
  }
  // MAP_PRIVATE + PROT_READ: pages come from the page cache on first touch, nothing is copied,
  // and nothing we do can write to the file. No madvise: the sandbox scans whole documents
  // (find, line index) but also slices at random, and the kernel's default read-ahead serves
  // both.
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (data == MAP_FAILED) {
    return fail(open_error(path, "map", errno));
  }
  return MappedDocument(path, static_cast<const char*>(data), size);
}

MappedDocument::MappedDocument(std::filesystem::path path, const char* data, std::size_t size)
    : m_path(std::move(path)), m_data(data), m_size(size) {}

MappedDocument::MappedDocument(MappedDocument&& other) noexcept
    : m_path(std::move(other.m_path)), m_data(std::exchange(other.m_data, nullptr)),
      m_size(std::exchange(other.m_size, 0)) {}

MappedDocument& MappedDocument::operator=(MappedDocument&& other) noexcept {
  if (this != &other) {
    std::swap(m_path, other.m_path);
    std::swap(m_data, other.m_data);
    std::swap(m_size, other.m_size);
  }
  return *this;
}

MappedDocument::~MappedDocument() {
  if (m_data != nullptr) {
    // munmap takes a non-const pointer; the pages were only ever mapped for reading.
    ::munmap(const_cast<char*>(m_data), m_size);
  }
}

} // namespace ralph::rlm
