#include "cli/heartbeat_command.h"

#include "cli/interrupt.h"
#include "cli/requests.h"
#include "cli/run_view.h"

#include "ralph/app/heartbeat/heartbeat.h"
#include "ralph/core/time.h"
#include "ralph/core/try.h"
#include "ralph/session/agents.h"
#include "ralph/session/settings.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>

namespace ralph::cli {
namespace {

void say(const std::string& line) {
  std::fprintf(stderr, "ralph heartbeat: %s\n", line.c_str());
  std::fflush(stderr);
}

std::string seconds(std::chrono::steady_clock::duration d) {
  return fmt::format("{:.1f} s", std::chrono::duration<double>(d).count());
}

// "process 1234" when the holder wrote its pid, else "another process".
std::string holder_text(const app::LockHolder& holder) {
  return holder.pid ? fmt::format("process {}", *holder.pid) : std::string("another process");
}

// The heartbeat on the terminal: each tick shown as `ralph run` shows a run, under its banner,
// and what happens between ticks as "ralph heartbeat: ..." lines on stderr.
class TerminalHeartbeat final : public app::HeartbeatObserver {
public:
  TerminalHeartbeat(const session::Runtime& runtime, const RunArgs& args,
                    const HeartbeatArgs& heartbeat)
      : m_runtime(runtime), m_args(args), m_heartbeat(heartbeat) {}

  EventSink& tick_started(const app::HeartbeatTick& tick,
                          const session::Session& session) override {
    const std::string count =
        m_heartbeat.every.count() == 0
            ? std::string("heartbeat")
            : fmt::format("heartbeat tick {}{}", tick.number,
                          tick.of > 0 ? fmt::format(" of {}", tick.of) : std::string());
    const std::string banner =
        fmt::format("ralph {} · {} · {} · workspace {}", RALPH_VERSION, count,
                    session::agent_label(session.config()), session.request().workspace.string());
    return m_display.emplace(m_runtime, session, m_args, banner).view();
  }

  void tick_finished(const app::HeartbeatTick& /*tick*/,
                     const session::SessionReport& report) override {
    m_display->finish(report);
    m_display.reset();
  }

  void tick_skipped(const app::HeartbeatTick& /*tick*/, const app::LockHolder& holder) override {
    const std::string by = holder_text(holder);
    say(fmt::format("skipped: a tick is still running in {} ({}); --wait waits for it", by,
                    holder.lock.string()));
    if (m_args.json) {
      std::printf("%s\n", nlohmann::json({{"status", "skipped"},
                                          {"reason", "a tick is still running in " + by}})
                              .dump()
                              .c_str());
      std::fflush(stdout);
    }
  }

  void waiting_for_running_tick(const app::HeartbeatTick& /*tick*/,
                                const app::LockHolder& holder) override {
    progress(fmt::format("waiting: a tick is still running in {}", holder_text(holder)));
  }

  void running_tick_ended(const app::HeartbeatTick& /*tick*/,
                          std::chrono::steady_clock::duration waited) override {
    progress(fmt::format("the running tick ended after {} of waiting; this one starts",
                         seconds(waited)));
  }

  void tasks_unreadable(const app::HeartbeatTick& tick, const Error& error) override {
    say(fmt::format("tick {} not run: {}", tick.number, error.message));
  }

  void ticks_missed(const app::HeartbeatTick& tick, std::chrono::steady_clock::duration took,
                    std::int64_t missed) override {
    say(fmt::format("tick {} took {}, longer than --every {}: skipped {} missed tick(s)",
                    tick.number, seconds(took), seconds(m_heartbeat.every), missed));
  }

  void next_tick(std::chrono::system_clock::time_point at,
                 std::chrono::steady_clock::duration in) override {
    progress(fmt::format("next tick at {} (in {})", iso8601_utc(at), seconds(in)));
  }

private:
  // What only tells how it goes: not with --quiet (skips, missed ticks and errors still are).
  void progress(const std::string& line) const {
    if (!m_args.quiet) {
      say(line);
    }
  }

  const session::Runtime& m_runtime;
  const RunArgs& m_args;
  const HeartbeatArgs& m_heartbeat;
  std::optional<RunDisplay> m_display; // the running tick's
};

} // namespace

Result<int> heartbeat_command(const RunArgs& args, const HeartbeatArgs& heartbeat) {
  session::Runtime runtime;
  TRY_ASSIGN(const std::filesystem::path workspace, session::resolve_workspace(args.workspace));
  TRY_ASSIGN(Config config,
             load_config(args, workspace, runtime.environment(), app::heartbeat_defaults()));
  const app::HeartbeatRequest request{.workspace = workspace,
                                      .config = std::move(config),
                                      .outputs = outputs_of(args),
                                      .every = heartbeat.every,
                                      .ticks = heartbeat.ticks,
                                      .wait = heartbeat.wait};
  // Ctrl-C during a tick stops it (and the command); between ticks and while waiting for the
  // lock it stops the command.
  const CancelToken cancel;
  const InterruptHandler interrupt(cancel);
  TerminalHeartbeat terminal(runtime, args, heartbeat);
  SystemClock clock;
  TRY_ASSIGN(const app::HeartbeatEnd end,
             app::run_heartbeat(runtime, request, terminal, clock, cancel));
  if (heartbeat.every.count() > 0) {
    if (end.stop == app::HeartbeatStop::interrupted_in_tick) {
      say(fmt::format("interrupted during tick {}; stopped", end.ticks));
    } else if (end.stop == app::HeartbeatStop::interrupted_between_ticks) {
      say(fmt::format("interrupted after {} tick(s); stopped", end.ticks));
    }
  }
  return end.exit_code;
}

} // namespace ralph::cli
