#include "cli/batch_command.h"

#include "cli/batch_terminal.h"
#include "cli/batch_view.h"
#include "cli/interrupt.h"
#include "cli/terminal_view.h"

#include "ralph/app/batch/batch.h"
#include "ralph/core/try.h"
#include "ralph/session/settings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace ralph::cli {
namespace {

// The command line as a batch: its configuration and every goal of the file read once. Bad
// lines (and goals whose cost budget has no price) are `problems`: nothing runs.
struct BatchCommandLine {
  app::BatchRequest request;
  std::vector<std::string> problems;
};

Result<BatchCommandLine> request_of(const RunArgs& args, const BatchArgs& batch,
                                    const session::Environment& env) {
  BatchCommandLine out;
  app::BatchRequest& request = out.request;
  TRY_ASSIGN(request.workspace, session::resolve_workspace(args.workspace));
  TRY_ASSIGN(request.flags, parse_settings(args.overrides));
  TRY_ASSIGN(Config loaded, session::load_settings({.workspace = request.workspace,
                                                    .extra_file = args.config_file,
                                                    .overrides = request.flags},
                                                   env));
  TRY_ASSIGN(request.config, app::batch_config(std::move(loaded), request.workspace));
  // Every line is checked before anything is made or run.
  TRY_ASSIGN(app::GoalsFile file, app::read_goals_file(batch.goals_file, request.config));
  TRY_ASSIGN(request.limits, app::batch_limits({.tokens = batch.token_budget,
                                                .cost = batch.cost_budget,
                                                .time = batch.time_budget}));
  out.problems = std::move(file.problems);
  for (std::string& problem :
       app::goal_price_problems(file.goals, batch.goals_file, request.limits)) {
    out.problems.push_back(std::move(problem));
  }
  request.goals = std::move(file.goals);
  request.goals_file = batch.goals_file;
  request.results_file = batch.results_file;
  request.concurrency = batch.concurrency;
  request.outputs.events_file = args.events_file;
  return out;
}

// 130 interrupted; 3 a batch budget ran out before every goal finished; 0 every goal completed;
// 1 otherwise.
int exit_code(const app::BatchEnd& end) {
  if (end.interrupted) {
    return 130;
  }
  const app::BatchProgress& summary = end.progress;
  const bool all_finished = static_cast<int>(summary.finished.size()) == summary.goals;
  if (end.budget && !all_finished) {
    return 3;
  }
  const bool all_completed =
      all_finished &&
      std::all_of(summary.finished.begin(), summary.finished.end(),
                  [](const app::GoalResult& r) { return r.status == Status::completed; });
  return all_completed ? 0 : 1;
}

} // namespace

Result<int> batch_command(const RunArgs& args, const BatchArgs& batch) {
  session::Runtime runtime;
  TRY_ASSIGN(BatchCommandLine command, request_of(args, batch, runtime.environment()));
  if (!command.problems.empty()) {
    for (const std::string& problem : command.problems) {
      std::fprintf(stderr, "%s\n", problem.c_str());
    }
    std::fprintf(stderr, "ralph batch: %zu problem(s) in %s; nothing was run\n",
                 command.problems.size(), batch.goals_file.c_str());
    return 2;
  }
  BatchTerminal terminal(args.quiet, !args.quiet && TerminalView::live_wanted(stderr));
  CancelToken interrupt;
  const InterruptHandler handler(interrupt);
  SystemClock clock;
  TRY_ASSIGN(const app::BatchEnd end,
             app::run_batch(runtime, command.request, terminal, clock, interrupt));
  terminal.close();
  if (args.json) {
    std::printf("%s\n", summary_json(end.progress, end).c_str());
  } else {
    std::fputs(summary_table(end.progress, end).c_str(), stdout);
  }
  std::fflush(stdout);
  if (!end.events_error.empty()) {
    std::fprintf(stderr, "ralph: warning: %s\n", end.events_error.c_str());
  }
  return exit_code(end);
}

} // namespace ralph::cli
