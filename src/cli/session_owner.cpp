#include "cli/session_owner.h"

#include "ralph/core/host_name.h"

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

bool owned_on_another_host(const store::SessionRow& row) {
  return row.owner_pid > 0 && !row.owner_host.empty() && row.owner_host != host_name();
}

bool session_owned(const store::SessionRow& row) {
  return owned_on_another_host(row) || runs_ralph(row.owner_pid);
}

std::string owner_text(const store::SessionRow& row) {
  return row.owner_host.empty()
             ? fmt::format("process {}", row.owner_pid)
             : fmt::format("process {} on host {}", row.owner_pid, row.owner_host);
}

} // namespace ralph::cli
