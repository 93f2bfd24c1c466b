#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/clock.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/core/event.h"
#include "ralph/session/report.h"
#include "ralph/session/runtime.h"
#include "ralph/session/session.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>

namespace ralph::app {

// Periodic check-ins on the workspace's HEARTBEAT.md: one tick, or a tick every `every`.
struct HeartbeatRequest {
  std::filesystem::path workspace;    // canonical; HEARTBEAT.md and .ralph/heartbeat.lock are here
  Config config;                      // resolved once, over heartbeat_defaults(); heartbeat set
  session::Outputs outputs;           // every tick appends its events to the one events file
  std::chrono::milliseconds every{0}; // a tick this often; 0: one tick
  int ticks = 0;                      // with `every`: stop after this many; 0: until cancelled
  bool wait = false;                  // wait for a running tick instead of skipping
};

// The defaults a heartbeat's configuration is loaded over: its ticks are verified by the judge
// with HEARTBEAT.md in view unless a file, a variable or a flag says otherwise.
Config heartbeat_defaults();

// Which tick: its number from 1, and of how many (0: no bound).
struct HeartbeatTick {
  int number = 1;
  int of = 0;
};

// Who holds the tick lock, as far as its lock file says.
struct LockHolder {
  std::optional<long long> pid; // none: the holder wrote no pid
  std::filesystem::path lock;   // the lock file
};

// What happens during a heartbeat, one typed call each (the terminal is one implementation).
// Calls come from the thread that called run_heartbeat; none of them steers it.
class HeartbeatObserver {
public:
  virtual ~HeartbeatObserver() = default;

  // The tick's session is prepared and about to run: returns the sink its events go to, which
  // must live until tick_finished.
  virtual EventSink& tick_started(const HeartbeatTick& tick, const session::Session& session) = 0;
  // The tick's session ended (its exit code is that of report.status).
  virtual void tick_finished(const HeartbeatTick& tick, const session::SessionReport& report) = 0;
  // Another tick holds the lock and the request does not wait: this tick is skipped (exit 0).
  virtual void tick_skipped(const HeartbeatTick& tick, const LockHolder& holder) = 0;
  // The request waits: the tick waits for the running one to end, then says how long it waited.
  virtual void waiting_for_running_tick(const HeartbeatTick& tick, const LockHolder& holder) = 0;
  virtual void running_tick_ended(const HeartbeatTick& tick,
                                  std::chrono::steady_clock::duration waited) = 0;
  // HEARTBEAT.md is gone, a folder or blank at this tick: it is not run (exit 2 for it) and the
  // next tick looks again.
  virtual void tasks_unreadable(const HeartbeatTick& tick, const Error& error) = 0;
  // The tick took `took`, longer than the interval: the `missed` slots it overran are skipped.
  virtual void ticks_missed(const HeartbeatTick& tick, std::chrono::steady_clock::duration took,
                            std::int64_t missed) = 0;
  // The next tick starts at `at` (calendar time), `in` from now.
  virtual void next_tick(std::chrono::system_clock::time_point at,
                         std::chrono::steady_clock::duration in) = 0;
};

enum class HeartbeatStop {
  finished,                  // the one tick, or the last of `ticks`, ended
  interrupted_in_tick,       // cancelled during a tick (or while waiting for the lock)
  interrupted_between_ticks, // cancelled while waiting for the next tick
};

// How a heartbeat ended.
struct HeartbeatEnd {
  // One tick: its exit code (0 when skipped). With `every`: 0 when every tick completed, else the
  // last failing tick's. 130 when interrupted.
  int exit_code = 0;
  int ticks = 0; // ticks begun, skipped ones included
  HeartbeatStop stop = HeartbeatStop::finished;
};

// Runs the ticks, each under .ralph/heartbeat.lock (ticks never overlap, across processes) on
// HEARTBEAT.md as it is then, recorded as a heartbeat session. Ticks keep to a grid of `clock`
// from the first one's start; the slots a long tick overran are skipped. All time comes from
// `clock`: the grid, the waits, the calendar time in each tick's goal. Configuration mistakes (no
// judge to verify with, no HEARTBEAT.md) are errors before anything runs; an error later is a
// tick that could not start.
Result<HeartbeatEnd> run_heartbeat(session::Runtime& runtime, const HeartbeatRequest& request,
                                   HeartbeatObserver& observer, Clock& clock,
                                   const CancelToken& cancel);

} // namespace ralph::app
