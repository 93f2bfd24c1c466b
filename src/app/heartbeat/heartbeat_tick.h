#pragma once

#include "ralph/app/heartbeat/heartbeat.h"
#include "ralph/core/cancel.h"
#include "ralph/core/clock.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/session/runtime.h"
#include "ralph/store/session_store.h"

namespace ralph::app {

// What every tick of one heartbeat shares.
struct TickContext {
  session::Runtime& runtime;
  const HeartbeatRequest& request;
  const Config& config; // the request's, with heartbeat on
  store::SessionStore& store;
  HeartbeatObserver& observer;
  Clock& clock;
  const CancelToken& cancel;
};

// One tick: the lock, HEARTBEAT.md, and a session recorded as a heartbeat. Returns the tick's exit
// code: its session's, 0 when skipped, 2 when HEARTBEAT.md could not be read, 130 when
// interrupted before its session ran. An error is what kept its session from starting.
Result<int> run_tick(const TickContext& context, const HeartbeatTick& tick);

} // namespace ralph::app
