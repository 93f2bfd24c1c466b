#include "cli/queue_enqueue.h"

#include "cli/requests.h"

#include "ralph/app/batch/enqueue.h"
#include "ralph/core/config.h"
#include "ralph/core/try.h"
#include "ralph/core/url.h"
#include "ralph/session/settings.h"
#include "ralph/store/goal_queue.h"
#include "ralph/store/open_session_store.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace ralph::cli {
namespace {

// What the local batch takes and a queued one cannot: its own folder and budgets.
std::optional<std::string> local_only_flag(const BatchArgs& batch) {
  if (!batch.results_file.empty()) {
    return "--results (read the results with `ralph batch export`)";
  }
  if (!batch.token_budget.empty() || !batch.cost_budget.empty() || !batch.time_budget.empty()) {
    return "the --batch-*-budget flags (each goal's own budgets are kept)";
  }
  return std::nullopt;
}

} // namespace

Result<int> enqueue_command(const RunArgs& args, const BatchArgs& batch) {
  if (const auto flag = local_only_flag(batch)) {
    return fail(ErrorKind::usage, fmt::format("ralph batch --queue does not take {}", *flag));
  }
  if (!store::is_server_url(batch.queue)) {
    return fail(ErrorKind::usage,
                fmt::format("--queue '{}': expected a PostgreSQL URL (postgresql://...)",
                            url_without_password(batch.queue)));
  }
  TRY_ASSIGN(const std::string name, app::queued_batch_name(batch.name, batch.goals_file));
  const session::Environment env = session::Environment::process();
  TRY_ASSIGN(const std::filesystem::path workspace, session::resolve_workspace(args.workspace));
  TRY_ASSIGN(Config config, load_config(args, workspace, env));
  TRY_ASSIGN(app::GoalsFile file, app::read_queued_goals(batch.goals_file, config));
  if (!file.problems.empty()) {
    for (const std::string& problem : file.problems) {
      std::fprintf(stderr, "%s\n", problem.c_str());
    }
    std::fprintf(stderr, "ralph batch: %zu problem(s) in %s; nothing was queued\n",
                 file.problems.size(), batch.goals_file.c_str());
    return 2;
  }
  TRY_ASSIGN(auto queue, store::GoalQueue::open(batch.queue, std::chrono::seconds(30)));
  TRY_ASSIGN(const store::EnqueueOutcome outcome,
             app::enqueue_goals(*queue, {.batch = name,
                                         .goals_file = batch.goals_file,
                                         .config = std::move(config),
                                         .goals = file.goals}));
  for (const std::string& id : outcome.conflicts) {
    const auto goal = std::find_if(file.goals.begin(), file.goals.end(),
                                   [&](const app::BatchGoal& g) { return g.id == id; });
    std::fprintf(stderr,
                 "%s:%d: id '%s' is queued already in batch %s with another line; left as it was "
                 "(give the goal a new id to queue it)\n",
                 batch.goals_file.c_str(), goal->line, id.c_str(), name.c_str());
  }
  const std::string line = fmt::format(
      "ralph batch: {} · {} added, {} queued already{} · {}", name, outcome.added.size(),
      outcome.already.size(),
      outcome.conflicts.empty() ? std::string()
                                : fmt::format(", {} with another line", outcome.conflicts.size()),
      url_without_password(batch.queue));
  if (args.json) {
    std::printf("%s\n", nlohmann::json{{"batch", name},
                                       {"added", outcome.added.size()},
                                       {"already", outcome.already.size()},
                                       {"conflicts", outcome.conflicts}}
                            .dump()
                            .c_str());
  } else {
    std::printf("%s\n", line.c_str());
  }
  return outcome.conflicts.empty() ? 0 : 1;
}

} // namespace ralph::cli
