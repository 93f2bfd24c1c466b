#include "ralph/store/session_owner.h"

#include "ralph/core/host_name.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <fstream>
#include <limits>
#include <unistd.h>

namespace ralph::store {

bool owner_alive(std::int64_t pid, const std::string& host) {
  if (pid <= 0) {
    return false;
  }
  if (!host.empty() && host != host_name()) {
    return true;
  }
  if (pid > std::numeric_limits<pid_t>::max() || pid == getpid()) {
    return false;
  }
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
    return false;
  }
  std::ifstream cmdline(fmt::format("/proc/{}/cmdline", pid), std::ios::binary);
  std::string text(4096, '\0');
  cmdline.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(cmdline.gcount()));
  return text.empty() || text.find("ralph") != std::string::npos;
}

bool owned_on_another_host(const SessionRow& row) {
  return row.owner_pid > 0 && !row.owner_host.empty() && row.owner_host != host_name();
}

bool session_owned(const SessionRow& row) {
  return owner_alive(row.owner_pid, row.owner_host);
}

bool session_stopped(const SessionRow& row, const OwnerCheck& owned) {
  const bool hook = row.model.starts_with("hook/");
  return row.status == Status::active && !hook && (row.owner_pid <= 0 || !owned(row));
}

std::string owner_text(const SessionRow& row) {
  return row.owner_host.empty()
             ? fmt::format("process {}", row.owner_pid)
             : fmt::format("process {} on host {}", row.owner_pid, row.owner_host);
}

} // namespace ralph::store
