#include "app/heartbeat/heartbeat_tick.h"

#include "app/heartbeat/heartbeat_tasks.h"
#include "app/heartbeat/tick_lock.h"

#include "ralph/core/status.h"
#include "ralph/core/try.h"
#include "ralph/session/session.h"

namespace ralph::app {

Result<int> run_tick(const TickContext& context, const HeartbeatTick& tick) {
  const HeartbeatRequest& request = context.request;
  TRY_ASSIGN(const TickLock lock,
             take_tick_lock(request.workspace / ".ralph" / "heartbeat.lock", request.wait, tick,
                            context.observer, context.clock, context.cancel));
  if (lock.outcome != LockOutcome::taken) {
    return lock.outcome == LockOutcome::skipped ? 0 : 130;
  }
  if (context.cancel.cancelled()) {
    return 130; // cancelled before the session started
  }
  const Result<std::string> tasks = read_heartbeat_tasks(request.workspace);
  if (!tasks) {
    // Gone since the last tick: said, and the next tick looks again.
    context.observer.tasks_unreadable(tick, tasks.error());
    return 2;
  }
  session::Outputs outputs = request.outputs;
  outputs.append_events = true; // one events file gathers every tick
  session::SessionRequest session_request{
      .goal = heartbeat_goal(*tasks, context.config.judge.rules_chars, context.clock.wall_now()),
      .workspace = request.workspace,
      .config = context.config,
      .outputs = std::move(outputs),
      .kind = store::SessionKind::heartbeat};
  TRY_ASSIGN(const auto session,
             session::Session::prepare(context.runtime, std::move(session_request),
                                       {.store = &context.store}, context.cancel));
  EventSink& events = context.observer.tick_started(tick, *session);
  TRY_ASSIGN(const session::SessionReport report, session->run(events));
  context.observer.tick_finished(tick, report);
  return exit_code(report.status);
}

} // namespace ralph::app
