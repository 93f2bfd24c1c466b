#pragma once

#include "ralph/app/batch/goals_file.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/store/goal_queue.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ralph::app {

// The name of a queued batch: `name`, or (empty) the goals file's batch id (batch_id_of); a usage
// error when it is not a branch name's part.
Result<std::string> queued_batch_name(const std::string& name,
                                      const std::filesystem::path& goals_file);

// A goals file read for the queue: every line checked as the local batch checks it (over
// `config`), and each goal's workspace one every worker can make: a `repo` (a URL) and `ref`, no
// path of this machine. What is wrong is in `problems`; nothing is queued then.
Result<GoalsFile> read_queued_goals(const std::filesystem::path& goals_file, const Config& config);

// Goals to add to a queued batch.
struct EnqueueRequest {
  std::string batch;                // queued_batch_name
  std::filesystem::path goals_file; // kept with the batch's settings, for people
  // Resolved here (files and flags): every worker runs the goals with it, its own store and
  // credentials aside. It holds no secrets (config_to_json).
  Config config;
  std::vector<BatchGoal> goals; // read_queued_goals, without problems
};

// Adds the goals missing from the batch (which is made with the request's configuration as its
// settings when new), in order; a goal queued already keeps its line. Idempotent by goal id.
Result<store::EnqueueOutcome> enqueue_goals(store::GoalQueue& queue, const EnqueueRequest& request);

} // namespace ralph::app
