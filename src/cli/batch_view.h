#pragma once

#include "cli/batch_store.h"

#include "ralph/core/settings.h"
#include "ralph/core/status.h"

#include <nlohmann/json_fwd.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ralph::cli {

// A finished goal as its line of results.jsonl says.
struct GoalResult {
  std::string id;
  Status status = Status::failed;
  bool verified = false;
  int attempts = 0;
  std::int64_t tokens = 0;
  std::optional<double> cost_usd;
  std::int64_t duration_ms = 0;
};

// A results line read back; nullopt when it is not one (no id or status).
std::optional<GoalResult> goal_result_of(const nlohmann::json& line);

// A goal running now, for the live display.
struct RunningGoal {
  std::string id;
  std::chrono::milliseconds running{0};
  int attempt = 0; // 0 before its first attempt starts
};

// The batch as the live display draws it.
struct BatchProgress {
  std::string batch_id;
  int goals = 0;
  std::vector<GoalResult> finished; // earlier runs of the batch included
  std::vector<RunningGoal> running;
  int finished_now = 0; // finished in this run, for the ETA
  BatchSpend spend;
  std::chrono::milliseconds elapsed{0}; // of this run
};

// Two lines: the counts, tokens, cost and ETA; the slowest running goals.
std::vector<std::string> live_lines(const BatchProgress& progress, std::size_t width);

// How the batch ended, for the summary.
struct BatchEnd {
  std::string results_file;
  bool interrupted = false;         // Ctrl-C or SIGTERM
  std::optional<BudgetKind> budget; // the batch budget that ran out
  int unfinished = 0;               // started, not finished (resumed by running again)
  int not_started = 0;
};

// The summary table for a person.
std::string summary_table(const BatchProgress& progress, const BatchEnd& end);
// The same as one JSON object (`--json`).
std::string summary_json(const BatchProgress& progress, const BatchEnd& end);

// "1m05s", "12.3 s" style durations for progress lines.
std::string short_duration(std::chrono::milliseconds duration);

} // namespace ralph::cli
