#include "store/owner_alive.h"

#include <cerrno>
#include <limits>
#include <signal.h>

namespace ralph::store {

bool owner_alive(std::int64_t pid) {
  if (pid <= 0 || pid > std::numeric_limits<pid_t>::max()) {
    return false;
  }
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

} // namespace ralph::store
