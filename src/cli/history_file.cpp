#include "cli/history_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <unistd.h>

namespace ralph::cli {

HistoryFile::HistoryFile(std::filesystem::path path) : m_path(std::move(path)) {}

std::vector<std::string> HistoryFile::load(std::size_t count) {
  std::vector<std::string> lines;
  std::error_code missing;
  if (m_path.empty() || !std::filesystem::exists(m_path, missing)) {
    return lines;
  }
  std::ifstream in(m_path, std::ios::binary);
  if (!in) {
    give_up("read", errno);
    return lines;
  }
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    if (!line.empty()) {
      lines.push_back(std::move(line));
    }
  }
  if (lines.size() > count) {
    lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(count));
  }
  return lines;
}

void HistoryFile::append(std::string_view line) {
  if (m_path.empty()) {
    return;
  }
  std::error_code ignored; // a folder that cannot be made shows as the open failing
  std::filesystem::create_directories(m_path.parent_path(), ignored);
  // One write(2) of the whole entry with O_APPEND: two chats sharing the file never mix lines.
  const int fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) {
    give_up("write", errno);
    return;
  }
  std::string entry(line);
  entry += '\n';
  const ssize_t wrote = ::write(fd, entry.data(), entry.size());
  const int error = errno;
  ::close(fd);
  if (wrote != static_cast<ssize_t>(entry.size())) {
    give_up("write", wrote < 0 ? error : ENOSPC);
  }
}

void HistoryFile::give_up(std::string_view what, int error) {
  fmt::print(stderr, "ralph: cannot {} the history file {}: {}; going on without it\n", what,
             m_path.string(), std::strerror(error));
  std::fflush(stderr);
  m_path.clear();
}

} // namespace ralph::cli
