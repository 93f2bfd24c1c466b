#pragma once

#include "store/file_lock.h"

#include "ralph/app/heartbeat/heartbeat.h"
#include "ralph/core/cancel.h"
#include "ralph/core/clock.h"
#include "ralph/core/error.h"

#include <filesystem>
#include <optional>

namespace ralph::app {

enum class LockOutcome { taken, skipped, interrupted };

// The lock of one tick: held (taken) until this is destroyed, or not taken at all.
struct TickLock {
  LockOutcome outcome = LockOutcome::taken;
  std::optional<store::FileLock> lock;
};

// The lock that keeps ticks from overlapping, across processes, with this process's pid in it:
// taken at once, or once the running tick ends when `wait` (polling on `clock`), or not (skipped);
// either way said to `observer`. Interrupted when `cancel` fires while waiting.
Result<TickLock> take_tick_lock(const std::filesystem::path& path, bool wait,
                                const HeartbeatTick& tick, HeartbeatObserver& observer,
                                Clock& clock, const CancelToken& cancel);

} // namespace ralph::app
