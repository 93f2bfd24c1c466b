#include "cli/heartbeat_command.h"

#include "cli/interrupt.h"
#include "cli/requests.h"
#include "cli/run_view.h"
#include "store/file_lock.h"

#include "ralph/core/text.h"
#include "ralph/core/time.h"
#include "ralph/core/try.h"
#include "ralph/session/agents.h"
#include "ralph/session/record.h"
#include "ralph/session/settings.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace ralph::cli {
namespace {

namespace fs = std::filesystem;
using Steady = std::chrono::steady_clock;

constexpr std::string_view k_tasks_file = "HEARTBEAT.md";
// How often a wait (for the next tick, for a running tick) looks at Ctrl-C and the lock.
constexpr auto k_poll = std::chrono::milliseconds(100);

void say(const std::string& line) {
  std::fprintf(stderr, "ralph heartbeat: %s\n", line.c_str());
  std::fflush(stderr);
}

std::string seconds(Steady::duration d) {
  return fmt::format("{:.1f} s", std::chrono::duration<double>(d).count());
}

// HEARTBEAT.md as it is now: the user edits it between ticks. A usage error naming the path when
// it is missing, unreadable or blank.
Result<std::string> read_tasks(const fs::path& workspace) {
  const fs::path path = workspace / k_tasks_file;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) {
    text << in.rdbuf();
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return fail(ErrorKind::usage, fmt::format("{} is a folder, not the tasks file", path.string()));
  }
  if (!in) {
    return fail(ErrorKind::usage,
                fmt::format("{}: no such file; write the tasks to check on each tick there",
                            path.string()));
  }
  if (trim(text.str()).empty()) {
    return fail(
        ErrorKind::usage,
        fmt::format("{} is empty; write the tasks to check on each tick there", path.string()));
  }
  return text.str();
}

// The goal of every tick (after OpenClaw's heartbeat prompt). The tasks are in it so the agent
// need not read the file, and the time so it can tell what is due.
std::string heartbeat_goal(std::string_view tasks, std::size_t max_bytes) {
  const std::string_view shown = utf8_prefix(tasks, max_bytes);
  std::string goal = fmt::format(
      "Heartbeat: a periodic check-in at {} UTC. HEARTBEAT.md in the workspace lists what to "
      "check and do; it is quoted below, so you need not read it.\n"
      "Do the tasks in it that are due now, following it strictly. Do not invent tasks it does "
      "not list and do not redo work an earlier check-in already did unless it says so. When you "
      "acted, say briefly what you did. When nothing needs attention, answer exactly HEARTBEAT_OK "
      "and nothing else.\n\n## HEARTBEAT.md\n{}",
      iso8601_utc(std::chrono::system_clock::now()), shown);
  if (shown.size() < tasks.size()) {
    goal += fmt::format("\n[... {} of {} bytes shown; read the file for the rest]", shown.size(),
                        tasks.size());
  }
  return goal;
}

// A lazy HEARTBEAT_OK can only be caught by a judge that reads HEARTBEAT.md.
Result<void> check_judge(const Config& config) {
  const LoopSettings& loop = config.loop;
  const bool verifying =
      loop.trigger.verify_heartbeat || loop.trigger.mode == TriggerMode::heartbeat;
  if (verifying && config.judge.model.empty() && !config.judge.on_agent_model) {
    return fail(ErrorKind::config,
                "heartbeat verification needs a judge: pass --judge PROVIDER/MODEL (or set "
                "judge.model), or turn it off with --no-verify-heartbeat");
  }
  return {};
}

// Waits until `until`; false when Ctrl-C came first.
bool sleep_until(Steady::time_point until, const CancelToken& cancel) {
  while (!cancel.cancelled()) {
    const auto now = Steady::now();
    if (now >= until) {
      return true;
    }
    std::this_thread::sleep_for(std::min<Steady::duration>(until - now, k_poll));
  }
  return false;
}

// "process 1234" when the holder wrote its pid, else "another process".
std::string holder_of(const fs::path& lock) {
  std::ifstream in(lock);
  long long pid = 0;
  if (in >> pid && pid > 0) {
    return fmt::format("process {}", pid);
  }
  return "another process";
}

enum class LockOutcome { taken, skipped, interrupted };

struct TickLock {
  LockOutcome outcome = LockOutcome::taken;
  std::optional<store::FileLock> lock;
};

// The lock that keeps ticks from overlapping, across processes: taken at once, or after the
// running tick ends (--wait), or not (skipped); either way said.
Result<TickLock> take_lock(const fs::path& path, bool wait, bool json, const CancelToken& cancel) {
  TRY_ASSIGN(std::optional<store::FileLock> lock, store::FileLock::try_acquire(path));
  if (!lock) {
    const std::string holder = holder_of(path);
    if (!wait) {
      say(fmt::format("skipped: a tick is still running in {} ({}); --wait waits for it", holder,
                      path.string()));
      if (json) {
        std::printf("%s\n", nlohmann::json({{"status", "skipped"},
                                            {"reason", "a tick is still running in " + holder}})
                                .dump()
                                .c_str());
        std::fflush(stdout);
      }
      return TickLock{.outcome = LockOutcome::skipped};
    }
    say(fmt::format("waiting: a tick is still running in {}", holder));
    const auto since = Steady::now();
    while (!lock) {
      if (!sleep_until(Steady::now() + k_poll, cancel)) {
        return TickLock{.outcome = LockOutcome::interrupted};
      }
      TRY_ASSIGN(lock, store::FileLock::try_acquire(path));
    }
    say(fmt::format("the running tick ended after {} of waiting; this one starts",
                    seconds(Steady::now() - since)));
  }
  TRY(lock->write_holder(fmt::format("{}\n", getpid())));
  return TickLock{.outcome = LockOutcome::taken, .lock = std::move(lock)};
}

struct Tick {
  int number = 1;
  int of = 0; // 0: no bound
};

// One tick: the lock, HEARTBEAT.md, and a run recorded as a heartbeat session. Returns the run's
// exit code (0 when skipped, 130 when interrupted).
Result<int> run_tick(session::Runtime& runtime, const RunArgs& args, const HeartbeatArgs& heartbeat,
                     const Config& config, const fs::path& workspace, store::SessionStore* store,
                     Tick tick, const CancelToken& cancel) {
  TRY_ASSIGN(TickLock lock,
             take_lock(workspace / ".ralph" / "heartbeat.lock", heartbeat.wait, args.json, cancel));
  if (lock.outcome != LockOutcome::taken) {
    return lock.outcome == LockOutcome::skipped ? 0 : 130;
  }
  if (cancel.cancelled()) {
    return 130; // Ctrl-C before the run started
  }
  const Result<std::string> tasks = read_tasks(workspace);
  if (!tasks) {
    // Gone since the last tick: said, and the next tick looks again.
    say(fmt::format("tick {} not run: {}", tick.number, tasks.error().message));
    return 2;
  }
  session::Outputs outputs = outputs_of(args);
  outputs.append_events = true;
  session::SessionRequest request{.goal = heartbeat_goal(*tasks, config.judge.rules_chars),
                                  .workspace = workspace,
                                  .config = config,
                                  .outputs = std::move(outputs),
                                  .kind = store::SessionKind::heartbeat};
  const std::string count =
      heartbeat.every.count() == 0
          ? std::string("heartbeat")
          : fmt::format("heartbeat tick {}{}", tick.number,
                        tick.of > 0 ? fmt::format(" of {}", tick.of) : std::string());
  const std::string banner = fmt::format("ralph {} · {} · {} · workspace {}", RALPH_VERSION, count,
                                         session::agent_label(config), workspace.string());
  TRY_ASSIGN(auto session,
             session::Session::prepare(runtime, std::move(request), {.store = store}, cancel));
  return run_shown(runtime, *session, args, banner);
}

} // namespace

Result<int> heartbeat_command(const RunArgs& args, const HeartbeatArgs& heartbeat) {
  session::Runtime runtime;
  TRY_ASSIGN(const fs::path workspace, session::resolve_workspace(args.workspace));
  Config defaults;
  defaults.loop.trigger.verify_heartbeat = true; // unless a file, variable or flag says false
  TRY_ASSIGN(Config config,
             load_config(args, workspace, runtime.environment(), std::move(defaults)));
  config.loop.heartbeat = true;
  TRY(check_judge(config));
  TRY(read_tasks(workspace)); // a mistake in the setup shows at once, not at the first tick
  std::error_code ec;
  fs::create_directories(workspace / ".ralph", ec);
  if (ec) {
    return fail(ErrorKind::io,
                fmt::format("cannot create {}: {}", (workspace / ".ralph").string(), ec.message()));
  }
  TRY_ASSIGN(const std::unique_ptr<store::SessionStore> store,
             session::open_store(config, workspace));
  // Ctrl-C during a tick stops it (and the command); between ticks and while waiting for the
  // lock it stops the command.
  CancelToken cancel;
  const InterruptHandler interrupt(cancel);
  const Tick first{.number = 1, .of = heartbeat.ticks};
  if (heartbeat.every.count() == 0) {
    return run_tick(runtime, args, heartbeat, config, workspace, store.get(), first, cancel);
  }

  // Ticks keep to a grid from the first one's start, so they do not drift by their own length;
  // the slots a long tick overran are skipped, not run late one after another.
  const Steady::time_point start = Steady::now();
  const Steady::duration every = heartbeat.every;
  int last_failure = 0;
  std::int64_t slot = 0;
  for (Tick tick = first;; ++tick.number) {
    const Steady::time_point began = Steady::now();
    TRY_ASSIGN(const int code,
               run_tick(runtime, args, heartbeat, config, workspace, store.get(), tick, cancel));
    if (code == 130) {
      say(fmt::format("interrupted during tick {}; stopped", tick.number));
      return 130;
    }
    if (code != 0) {
      last_failure = code;
    }
    if (heartbeat.ticks > 0 && tick.number >= heartbeat.ticks) {
      return last_failure;
    }
    const Steady::time_point now = Steady::now();
    std::int64_t next = slot + 1;
    if (start + next * every < now) {
      const std::int64_t due = (now - start) / every + 1;
      say(fmt::format("tick {} took {}, longer than --every {}: skipped {} missed tick(s)",
                      tick.number, seconds(now - began), seconds(every), due - next));
      next = due;
    }
    slot = next;
    const Steady::duration until_next = start + slot * every - Steady::now();
    say(fmt::format(
        "next tick at {} (in {})",
        iso8601_utc(std::chrono::system_clock::now() +
                    std::chrono::duration_cast<std::chrono::system_clock::duration>(until_next)),
        seconds(until_next)));
    if (!sleep_until(start + slot * every, cancel)) {
      say(fmt::format("interrupted after {} tick(s); stopped", tick.number));
      return 130;
    }
  }
}

} // namespace ralph::cli
