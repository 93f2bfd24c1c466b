#include "cli/session_owner.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <fstream>
#include <string>
#include <unistd.h>

namespace ralph::cli {

bool runs_ralph(std::int64_t pid) {
  if (pid <= 0 || pid == getpid()) {
    return false;
  }
  // EPERM: alive, someone else's. Only ESRCH proves it is gone.
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
    return false;
  }
  std::ifstream cmdline(fmt::format("/proc/{}/cmdline", pid), std::ios::binary);
  std::string text(4096, '\0');
  cmdline.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(cmdline.gcount()));
  return text.empty() || text.find("ralph") != std::string::npos;
}

} // namespace ralph::cli
