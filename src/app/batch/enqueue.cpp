#include "ralph/app/batch/enqueue.h"

#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace ralph::app {

namespace fs = std::filesystem;

Result<std::string> queued_batch_name(const std::string& name, const fs::path& goals_file) {
  if (name.empty()) {
    return batch_id_of(fs::weakly_canonical(fs::absolute(goals_file)));
  }
  // A batch name is a branch name's part, as goal ids are.
  const bool valid = name.size() <= 100 && name.front() != '-' && name.front() != '.' &&
                     std::all_of(name.begin(), name.end(), [](char c) {
                       return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
                     });
  if (!valid) {
    return fail(ErrorKind::usage, fmt::format("--name '{}': use letters, digits, '.', '_' and "
                                              "'-' (it names branches)",
                                              name));
  }
  return name;
}

Result<GoalsFile> read_queued_goals(const fs::path& goals_file, const Config& config) {
  TRY_ASSIGN(GoalsFile file, read_goals_file(goals_file, config));
  for (const BatchGoal& goal : file.goals) {
    // Workers on other machines cannot see this one's folders.
    if (!goal.source.empty()) {
      file.problems.push_back(fmt::format(
          "{}:{}: a queued goal names its workspace with 'repo' (a URL every worker can clone, "
          "file:// on one machine) and 'ref'; 'workspace' and local paths are this machine's",
          goals_file.string(), goal.line));
    }
  }
  return file;
}

Result<store::EnqueueOutcome> enqueue_goals(store::GoalQueue& queue,
                                            const EnqueueRequest& request) {
  std::vector<store::GoalSpec> specs;
  specs.reserve(request.goals.size());
  for (const BatchGoal& goal : request.goals) {
    specs.push_back({.id = goal.id, .spec_json = goal.spec_json});
  }
  const nlohmann::json settings = {
      {"config", nlohmann::json::parse(config_to_json(request.config))},
      {"goals_file", fs::absolute(request.goals_file).string()}};
  return queue.enqueue(request.batch, settings.dump(), specs);
}

} // namespace ralph::app
