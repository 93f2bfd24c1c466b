#pragma once

#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/core/settings.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ralph::app {

// One line of a goals file: what to do, where, and the configuration keys it sets over the
// batch's. Its keys are read once, here: what runs it takes `settings` and `config` as they are.
struct BatchGoal {
  int line = 0;
  std::string id;   // unique in the file; a folder and branch name
  std::string goal; // the goal text
  // The workspace its own copy or worktree is made from: `workspace`, a local `repo`, or empty
  // (the batch's workspace; a `repo` URL is cloned first).
  std::filesystem::path source;
  std::string repo_url;          // a `repo` to clone (URL), empty otherwise
  std::string ref;               // what a worktree starts from; empty: the source as it is now
  std::vector<Setting> settings; // its keys, typed: over a resumed session's recorded config
  Config config;                 // the base configuration with its keys over it: a new session's
  std::string spec_json;         // the line's object, as `ralph batch --queue` stores it
};

// A goals file read whole: every goal when all lines were good, else every problem, each as
// "FILE:LINE: what is wrong".
struct GoalsFile {
  std::vector<BatchGoal> goals;
  std::vector<std::string> problems;
};

// Reads `path`: one JSON object per line; blank lines and lines starting with `#` are skipped.
// Keys: `id` and `goal` (required), `workspace`, `repo`, `ref`, the `ralph run` flags that set a
// configuration key in snake case (`max_iterations`, `verify`, `model`, `token_budget`, ...) and
// any dotted configuration key (`loop.feedback`). Each goal's keys are checked and typed once, and
// its configuration resolved over `base`. Relative paths are relative to the file's folder. An
// error only when the file cannot be read.
Result<GoalsFile> read_goals_file(const std::filesystem::path& path, const Config& base);

// One goal from its line's object as `spec_json` holds it (a queued goal), checked as
// read_goals_file checks a line; its problems are prefixed with `where`.
Result<BatchGoal> goal_from_spec(const std::string& spec_json, const std::string& where,
                                 const Config& base);

// A cost budget counts only with a price for every model it counts: a problem ("FILE:LINE: ...",
// FILE as `path` says it) for each goal with a cost budget of its own, or under the batch's
// (`limits.max_cost_usd`), and a model without a price.
std::vector<std::string> goal_price_problems(const std::vector<BatchGoal>& goals,
                                             const std::filesystem::path& path,
                                             const BudgetSettings& limits);

// "goals-1a2b3c4d": the file's name and a hash of its absolute path, so running the same file
// again is the same batch, and two files of one name are not.
std::string batch_id_of(const std::filesystem::path& file);

} // namespace ralph::app
