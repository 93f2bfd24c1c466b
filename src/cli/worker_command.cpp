#include "cli/worker_command.h"

#include "cli/interrupt.h"

#include "ralph/app/batch/worker.h"
#include "ralph/core/try.h"
#include "ralph/core/url.h"
#include "ralph/session/settings.h"
#include "ralph/store/goal_queue.h"
#include "ralph/store/open_session_store.h"

#include <fmt/format.h>

#include <cstdio>

namespace ralph::cli {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// The worker's lines on stderr, "ralph worker: ..." (none when quiet).
class WorkerLines final : public app::WorkerObserver {
public:
  WorkerLines(bool quiet, std::string queue_url)
      : m_quiet(quiet), m_queue_url(std::move(queue_url)) {}

  void worker_started(const app::WorkerStart& start) override {
    say(fmt::format("ralph {} · worker {} · {} · concurrency {} · {} · {}", RALPH_VERSION,
                    start.name, url_without_password(m_queue_url), start.concurrency,
                    fmt::format("{:.1f}s", static_cast<double>(start.lease.count()) / 1000.0),
                    start.workdir.string()));
  }
  void workspace_restored(const app::WorkerGoal& goal) override {
    say(fmt::format("ralph worker: {} · workspace restored from its checkpoint", label(goal)));
  }
  void goal_started(const app::WorkerGoal& goal) override {
    say(fmt::format("ralph worker: {} {} · try {} · {}", goal.resumed ? "resumed" : "started",
                    label(goal), goal.tries, goal.workspace.string()));
  }
  void goal_finished(const app::WorkerGoal& goal, const session::SessionReport& report,
                     bool recorded) override {
    say(fmt::format("ralph worker: {} {}{}{}", label(goal), to_string(report.status),
                    report.verified ? ", verified" : "",
                    recorded ? std::string() : " · not recorded: another worker has it now"));
  }
  void goal_released(const app::WorkerGoal& goal) override {
    say(fmt::format("ralph worker: {} · interrupted, given back to the queue", label(goal)));
  }
  void lease_lost(const app::WorkerGoal& goal) override {
    say(fmt::format("ralph worker: {} · lease lost, another worker has it now", label(goal)));
  }
  void checkpoint_not_saved(const app::WorkerGoal& goal, const Error& error) override {
    say(fmt::format("ralph worker: {} · checkpoint not saved: {}", label(goal), error.message));
  }

  void say(const std::string& line) const {
    if (!m_quiet) {
      std::fprintf(stderr, "%s\n", line.c_str());
      std::fflush(stderr);
    }
  }

private:
  static std::string label(const app::WorkerGoal& goal) {
    return fmt::format("{}/{}", goal.batch, goal.id);
  }

  bool m_quiet = false;
  std::string m_queue_url;
};

} // namespace

Result<int> worker_command(const RunArgs& args, const WorkerArgs& worker) {
  if (!store::is_server_url(worker.queue)) {
    return fail(ErrorKind::usage,
                fmt::format("--queue '{}': expected a PostgreSQL URL (postgresql://...)",
                            url_without_password(worker.queue)));
  }
  app::WorkerRequest request{.workdir =
                                 fs::absolute(worker.workdir.empty() ? fs::path(".ralph") / "worker"
                                                                     : fs::path(worker.workdir)),
                             .concurrency = worker.concurrency,
                             .lease = worker.lease,
                             .push = worker.push,
                             .exit_when_empty = worker.exit_when_empty};
  std::error_code ec;
  fs::create_directories(request.workdir, ec);
  if (ec) {
    return fail(ErrorKind::io, fmt::format("--workdir {}: cannot create it: {}",
                                           request.workdir.string(), ec.message()));
  }
  session::Runtime runtime;
  TRY_ASSIGN(request.flags, parse_settings(args.overrides));
  TRY_ASSIGN(request.config, session::load_settings({.workspace = request.workdir,
                                                     .extra_file = args.config_file,
                                                     .overrides = request.flags},
                                                    runtime.environment()));
  if (request.config.store.url.empty()) {
    // The queue's database: a worker on any machine resumes any other's goals.
    request.config.store.url = worker.queue;
  }
  // Faults are retried for as long as a lease lasts: past it, the goals are another's anyway.
  TRY_ASSIGN(auto queue,
             store::GoalQueue::open(worker.queue, std::max(worker.lease, milliseconds(10000))));
  WorkerLines lines(args.quiet, worker.queue);
  CancelToken interrupt;
  const InterruptHandler handler(interrupt);
  SystemClock clock;
  TRY_ASSIGN(const app::WorkerEnd end,
             app::run_worker(runtime, request, lines, *queue, clock, interrupt));
  lines.say(fmt::format("ralph worker: {} goal(s) finished{}", end.finished,
                        end.interrupted && !end.fault ? " · stopped" : ""));
  if (end.fault) {
    return tl::unexpected(*end.fault);
  }
  return end.interrupted ? 130 : 0;
}

} // namespace ralph::cli
