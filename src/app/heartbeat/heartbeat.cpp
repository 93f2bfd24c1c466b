#include "ralph/app/heartbeat/heartbeat.h"

#include "app/heartbeat/heartbeat_tasks.h"
#include "app/heartbeat/heartbeat_tick.h"

#include "ralph/core/try.h"
#include "ralph/session/record.h"

#include <fmt/format.h>

#include <algorithm>

namespace ralph::app {

namespace fs = std::filesystem;

Config heartbeat_defaults() {
  Config defaults;
  defaults.loop.trigger.verify_heartbeat = true;
  return defaults;
}

Result<HeartbeatEnd> run_heartbeat(session::Runtime& runtime, const HeartbeatRequest& request,
                                   HeartbeatObserver& observer, Clock& clock,
                                   const CancelToken& cancel) {
  Config config = request.config;
  config.loop.heartbeat = true;
  TRY(check_heartbeat_judge(config));
  TRY(read_heartbeat_tasks(request.workspace)); // a mistake in the setup shows at once
  const fs::path state_dir = request.workspace / ".ralph";
  std::error_code ec;
  fs::create_directories(state_dir, ec);
  if (ec) {
    return fail(ErrorKind::io,
                fmt::format("cannot create {}: {}", state_dir.string(), ec.message()));
  }
  TRY_ASSIGN(const std::unique_ptr<store::SessionStore> store,
             session::open_store(config, request.workspace));
  const TickContext context{.runtime = runtime,
                            .request = request,
                            .config = config,
                            .store = *store,
                            .observer = observer,
                            .clock = clock,
                            .cancel = cancel};
  HeartbeatTick tick{.number = 1, .of = request.ticks};
  if (request.every.count() == 0) {
    TRY_ASSIGN(const int code, run_tick(context, tick));
    return HeartbeatEnd{.exit_code = code,
                        .ticks = 1,
                        .stop = code == 130 ? HeartbeatStop::interrupted_in_tick
                                            : HeartbeatStop::finished};
  }

  // Ticks keep to a grid from the first one's start, so they do not drift by their own length;
  // the slots a long tick overran are skipped, not run late one after another.
  const Clock::time_point start = clock.now();
  const std::chrono::steady_clock::duration every = request.every;
  int last_failure = 0;
  std::int64_t slot = 0;
  for (;; ++tick.number) {
    const Clock::time_point began = clock.now();
    TRY_ASSIGN(const int code, run_tick(context, tick));
    if (code == 130) {
      return HeartbeatEnd{
          .exit_code = 130, .ticks = tick.number, .stop = HeartbeatStop::interrupted_in_tick};
    }
    if (code != 0) {
      last_failure = code;
    }
    if (request.ticks > 0 && tick.number >= request.ticks) {
      return HeartbeatEnd{.exit_code = last_failure, .ticks = tick.number};
    }
    const Clock::time_point now = clock.now();
    std::int64_t next = slot + 1;
    if (start + next * every < now) {
      const std::int64_t due = (now - start) / every + 1;
      observer.ticks_missed(tick, now - began, due - next);
      next = due;
    }
    slot = next;
    const std::chrono::steady_clock::duration until_next =
        std::max(start + slot * every - clock.now(), std::chrono::steady_clock::duration::zero());
    observer.next_tick(
        clock.wall_now() +
            std::chrono::duration_cast<std::chrono::system_clock::duration>(until_next),
        until_next);
    // Rounded up: woken a moment early, the tick would start off its slot.
    if (!clock.sleep_for(std::chrono::ceil<std::chrono::milliseconds>(until_next), cancel)) {
      return HeartbeatEnd{
          .exit_code = 130, .ticks = tick.number, .stop = HeartbeatStop::interrupted_between_ticks};
    }
  }
}

} // namespace ralph::app
