#include "cli/queue_enqueue.h"

#include "cli/batch_goals.h"
#include "cli/requests.h"

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

namespace fs = std::filesystem;

// A batch name is a branch name's part, as goal ids are.
bool valid_name(std::string_view name) {
  return !name.empty() && name.size() <= 100 && name.front() != '-' && name.front() != '.' &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
         });
}

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
  const std::string name = batch.name.empty()
                               ? batch_id_of(fs::weakly_canonical(fs::absolute(batch.goals_file)))
                               : batch.name;
  if (!valid_name(name)) {
    return fail(ErrorKind::usage, fmt::format("--name '{}': use letters, digits, '.', '_' and "
                                              "'-' (it names branches)",
                                              name));
  }
  const session::Environment env = session::Environment::process();
  TRY_ASSIGN(const fs::path workspace, session::resolve_workspace(args.workspace));
  TRY_ASSIGN(const Config config, load_config(args, workspace, env));
  TRY_ASSIGN(GoalsFile file, read_goals_file(batch.goals_file, config));
  for (const BatchGoal& goal : file.goals) {
    // Workers on other machines cannot see this one's folders.
    if (!goal.source.empty()) {
      file.problems.push_back(fmt::format(
          "{}:{}: a queued goal names its workspace with 'repo' (a URL every worker can clone, "
          "file:// on one machine) and 'ref'; 'workspace' and local paths are this machine's",
          batch.goals_file, goal.line));
    }
  }
  if (!file.problems.empty()) {
    for (const std::string& problem : file.problems) {
      std::fprintf(stderr, "%s\n", problem.c_str());
    }
    std::fprintf(stderr, "ralph batch: %zu problem(s) in %s; nothing was queued\n",
                 file.problems.size(), batch.goals_file.c_str());
    return 2;
  }
  std::vector<store::GoalSpec> specs;
  specs.reserve(file.goals.size());
  for (const BatchGoal& goal : file.goals) {
    specs.push_back({.id = goal.id, .spec_json = goal.spec_json});
  }
  // The configuration as resolved here (files and flags): workers run every goal with it,
  // their own store and credentials aside. It holds no secrets (config_to_json).
  const nlohmann::json settings = {{"config", nlohmann::json::parse(config_to_json(config))},
                                   {"goals_file", fs::absolute(batch.goals_file).string()}};
  TRY_ASSIGN(auto queue, store::GoalQueue::open(batch.queue, std::chrono::seconds(30)));
  TRY_ASSIGN(const store::EnqueueOutcome outcome, queue->enqueue(name, settings.dump(), specs));
  for (const std::string& id : outcome.conflicts) {
    const auto goal = std::find_if(file.goals.begin(), file.goals.end(),
                                   [&](const BatchGoal& g) { return g.id == id; });
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
