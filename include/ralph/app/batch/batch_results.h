#pragma once

#include "ralph/core/settings.h"
#include "ralph/core/status.h"

#include <nlohmann/json_fwd.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ralph::app {

// What the sessions of a batch have spent together, all their runs included.
struct BatchSpend {
  std::int64_t tokens = 0; // input + output
  double cost_usd = 0;
  bool cost_known = true;
};

// A finished goal as its line of results.jsonl says.
struct GoalResult {
  std::string id;
  std::string session_id; // empty in a line without one
  Status status = Status::failed;
  bool verified = false;
  int attempts = 0;
  std::int64_t tokens = 0;
  std::optional<double> cost_usd;
  std::int64_t duration_ms = 0;
};

// A results line read back; nullopt when it is not one (no id or status).
std::optional<GoalResult> goal_result_of(const nlohmann::json& line);

// A goal running now, for a live display.
struct RunningGoal {
  std::string id;
  std::chrono::milliseconds running{0};
  int attempt = 0; // 0 before its first attempt starts
};

// The batch as it is at one moment.
struct BatchProgress {
  std::string batch_id;
  int goals = 0;
  std::vector<GoalResult> finished; // earlier runs of the batch included
  std::vector<RunningGoal> running;
  int finished_now = 0; // finished in this run, for the ETA
  BatchSpend spend;
  std::chrono::milliseconds elapsed{0}; // of this run
};

// How a run of the batch ended.
struct BatchEnd {
  BatchProgress progress; // the batch at its end
  std::string results_file;
  bool interrupted = false;         // the caller's cancel (Ctrl-C or SIGTERM)
  std::optional<BudgetKind> budget; // the batch budget that ran out
  int unfinished = 0;               // started, not finished (resumed by running again)
  int not_started = 0;
  std::string events_error; // the events file could not be written in full
};

} // namespace ralph::app
