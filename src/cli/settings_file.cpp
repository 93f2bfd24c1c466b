#include "cli/settings_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace ralph::cli {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

Result<std::optional<std::string>> read_settings_text(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    return std::optional<std::string>();
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return fail(ErrorKind::config,
                fmt::format("{}: cannot read: {}", file.string(), std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return std::optional<std::string>(text.str());
}

Result<Json> read_json_settings(const fs::path& file) {
  auto text = read_settings_text(file);
  if (!text) {
    return tl::unexpected(text.error());
  }
  if (!*text || text->value().find_first_not_of(" \t\r\n") == std::string::npos) {
    return Json::object();
  }
  Json parsed = Json::parse(**text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return fail(ErrorKind::config,
                fmt::format("{}: not a JSON object (malformed?); fix or move it, then run the "
                            "command again: it was left as it was",
                            file.string()));
  }
  return parsed;
}

Result<void> write_atomically(const fs::path& file, const std::string& text) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec) {
    return fail(ErrorKind::io, fmt::format("{}: cannot create the folder: {}",
                                           file.parent_path().string(), ec.message()));
  }
  std::string temp =
      (file.parent_path() / ("." + file.filename().string() + ".ralph-XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    return fail(ErrorKind::io,
                fmt::format("{}: cannot write beside it: {}", file.string(), std::strerror(errno)));
  }
  struct stat old {};
  ::fchmod(fd, ::stat(file.c_str(), &old) == 0 ? (old.st_mode & 07777) : 0644);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  const bool written = done == text.size() && ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  if (!written || ::rename(temp.c_str(), file.c_str()) != 0) {
    const int error = written ? errno : saved;
    ::unlink(temp.c_str());
    return fail(ErrorKind::io,
                fmt::format("{}: cannot write: {}", file.string(), std::strerror(error)));
  }
  return {};
}

} // namespace ralph::cli
