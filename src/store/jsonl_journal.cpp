#include "ralph/store/jsonl_journal.h"

#include "ralph/core/json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ralph::store {
namespace {

Error io_error(const std::filesystem::path& path, const char* what) {
  return Error{.kind = ErrorKind::io,
               .message = fmt::format("{}: {}: {}", path.string(), what, std::strerror(errno))};
}

} // namespace

JsonlJournal::JsonlJournal(int fd, std::filesystem::path path)
    : m_fd(fd), m_path(std::move(path)),
      m_existing(std::make_unique<std::vector<nlohmann::json>>()) {}

JsonlJournal::~JsonlJournal() {
  ::close(m_fd);
}

Result<std::unique_ptr<JsonlJournal>> JsonlJournal::open(const std::filesystem::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
  }
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return fail(io_error(path, "cannot open"));
  }
  std::unique_ptr<JsonlJournal> journal(new JsonlJournal(fd, path));
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      return fail(io_error(path, "cannot read"));
    }
    if (got == 0) {
      break;
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
  // A torn last line (the process died mid-write) is dropped, so the next append starts clean.
  const std::size_t kept = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  if (kept != text.size()) {
    if (::ftruncate(fd, static_cast<off_t>(kept)) != 0) {
      return fail(io_error(path, "cannot cut a torn line"));
    }
    text.resize(kept);
  }
  if (::lseek(fd, 0, SEEK_END) < 0) {
    return fail(io_error(path, "cannot seek"));
  }
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\n', start);
    // Bounded nesting: a line is printed and copied later, recursively.
    if (auto parsed = parse_json(std::string_view(text).substr(start, end - start), "journal line");
        parsed && parsed->is_object()) {
      journal->m_existing->push_back(std::move(*parsed));
    }
    start = end + 1;
  }
  return journal;
}

const std::vector<nlohmann::json>& JsonlJournal::existing() const {
  return *m_existing;
}

Result<void> JsonlJournal::append(const nlohmann::json& object) {
  const std::string line =
      object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(m_fd, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return fail(io_error(m_path, "cannot write"));
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(m_fd) != 0) {
    return fail(io_error(m_path, "cannot sync"));
  }
  return {};
}

} // namespace ralph::store
