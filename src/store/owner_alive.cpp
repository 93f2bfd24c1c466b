#include "store/owner_alive.h"

#include "ralph/core/host_name.h"

#include <cerrno>
#include <limits>
#include <signal.h>

namespace ralph::store {

bool owner_alive(std::int64_t pid, const std::string& host) {
  if (pid <= 0) {
    return false;
  }
  if (!host.empty() && host != host_name()) {
    return true;
  }
  if (pid > std::numeric_limits<pid_t>::max()) {
    return false;
  }
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

} // namespace ralph::store
