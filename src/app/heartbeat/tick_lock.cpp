#include "app/heartbeat/tick_lock.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <fstream>
#include <unistd.h>

namespace ralph::app {
namespace {

// How often a tick waiting for the running one looks at the lock again.
constexpr std::chrono::milliseconds k_poll{100};

// The pid the holder wrote into the lock file, when it did.
LockHolder holder_of(const std::filesystem::path& lock) {
  std::ifstream in(lock);
  long long pid = 0;
  if (in >> pid && pid > 0) {
    return {.pid = pid, .lock = lock};
  }
  return {.lock = lock};
}

} // namespace

Result<TickLock> take_tick_lock(const std::filesystem::path& path, bool wait,
                                const HeartbeatTick& tick, HeartbeatObserver& observer,
                                Clock& clock, const CancelToken& cancel) {
  TRY_ASSIGN(std::optional<store::FileLock> lock, store::FileLock::try_acquire(path));
  if (!lock) {
    const LockHolder holder = holder_of(path);
    if (!wait) {
      observer.tick_skipped(tick, holder);
      return TickLock{.outcome = LockOutcome::skipped};
    }
    observer.waiting_for_running_tick(tick, holder);
    const Clock::time_point since = clock.now();
    while (!lock) {
      if (!clock.sleep_for(k_poll, cancel)) {
        return TickLock{.outcome = LockOutcome::interrupted};
      }
      TRY_ASSIGN(lock, store::FileLock::try_acquire(path));
    }
    observer.running_tick_ended(tick, clock.now() - since);
  }
  TRY(lock->write_holder(fmt::format("{}\n", getpid())));
  return TickLock{.outcome = LockOutcome::taken, .lock = std::move(lock)};
}

} // namespace ralph::app
