#pragma once

#include "ralph/app/batch/batch_results.h"
#include "ralph/app/batch/goals_file.h"
#include "ralph/core/cancel.h"
#include "ralph/core/clock.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/core/settings.h"
#include "ralph/session/report.h"
#include "ralph/session/runtime.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ralph::app {

// What a batch writes besides its folder's journals and its goals' session records.
struct BatchOutputs {
  // Every goal's events as NDJSON, each line with its session; appended to, so a batch run again
  // keeps the events of its earlier runs. Empty: none.
  std::filesystem::path events_file;
};

// Many goals, each a session in its own workspace, `concurrency` at a time, recorded so that the
// same request again skips the finished goals and resumes the others.
struct BatchRequest {
  std::filesystem::path workspace; // canonical: the source of goals that name none
  // The batch is this file's (batch_id_of): its folder is .ralph/batch/<id> of the workspace.
  std::filesystem::path goals_file;
  // Read once (read_goals_file, over `config`) and run as they are: a new goal's session with
  // its `config`, a resumed one's with its recorded configuration, `flags` and its `settings`.
  std::vector<BatchGoal> goals;
  std::vector<Setting> flags; // the command's, over a resumed goal's recorded configuration
  Config config;              // the batch's, from batch_config: its store records every goal
  std::filesystem::path results_file; // empty: results.jsonl in the batch's folder
  int concurrency = 8;                // goals running at once
  // The batch's own budgets: max_tokens and max_cost_usd over every goal's sessions (all their
  // runs), max_time of this run. 0: none.
  BudgetSettings limits;
  BatchOutputs outputs;
};

// The configuration the goals of a batch in `workspace` are read over: `loaded` with its store
// pinned to the workspace's, so that every goal's session and outputs go there wherever the goal
// works. A config error when the store is disabled (a batch resumes from its records).
Result<Config> batch_config(Config loaded, const std::filesystem::path& workspace);

// The texts of a batch's own budgets (BatchRequest::limits) and what a mistake in each is
// called (a flag, a request's field); an empty text sets none.
struct BatchLimitTexts {
  std::string tokens;
  std::string cost;
  std::string time;
  std::string tokens_name = "--batch-token-budget";
  std::string cost_name = "--batch-cost-budget";
  std::string time_name = "--batch-time-budget";
};

// The batch's budgets, each checked by the configuration's key table as a goal's own are
// (budget.max_tokens, budget.max_cost_usd, budget.max_time).
Result<BudgetSettings> batch_limits(const BatchLimitTexts& texts);

// A batch about to start its goals.
struct BatchStart {
  std::string batch_id;
  std::filesystem::path dir; // .ralph/batch/<id>: its journals, lock and goal workspaces
  int goals = 0;
  int finished = 0; // by earlier runs
  int concurrency = 0;
};

// A goal whose session is about to run.
struct GoalStart {
  std::string id;
  std::string session_id;
  std::filesystem::path workspace;
  std::string branch; // empty for a copy
  bool resumed = false;
  int position = 0; // finished and running goals, this one included
  int goals = 0;
};

// A goal that ended with a final status, its results line written (or one that could not start).
struct FinishedGoal {
  std::string id;
  session::SessionReport report;
  int finished = 0; // goals finished now, this one included
  int goals = 0;
};

// What happens during a batch, one typed call each (the terminal is one implementation). Every
// call comes from the thread that called run_batch; none of them steers the batch.
class BatchObserver {
public:
  virtual ~BatchObserver() = default;
  // The finished goals are sorted out (those found ended in their record only now are reported
  // first, through goal_finished); the others start next.
  virtual void batch_started(const BatchStart& start) = 0;
  virtual void goal_started(const GoalStart& goal) = 0;
  virtual void goal_finished(const FinishedGoal& goal) = 0;
  // The goal's session stopped before its end (interrupted): it goes on when the batch runs again.
  virtual void goal_stopped(const std::string& id, const session::SessionReport& report) = 0;
  // The batch as it is now: after goals end, and every quarter of a second while goals run.
  virtual void progress(const BatchProgress& progress) = 0;
  // A line of state.jsonl or results.jsonl could not be written; the batch goes on.
  virtual void journal_error(const Error& error) = 0;
};

// Runs the goals not finished yet, each in its own worktree (or copy) made on the calling thread
// and its session on an engine, sharing one store that sums the batch's spend. Every goal's state
// goes to .ralph/batch/<id>/state.jsonl and each result to results.jsonl, fsynced; a goal with a
// results line is never run again. The batch's folder is locked while it runs. Configuration
// mistakes (a disabled store, a cost budget without prices) and a batch running in another process
// are errors before anything runs. `cancel` stops the running goals (interrupted: resumed next
// time) and starts no other; so does a batch budget. Time (its time budget, the progress) comes
// from `clock`.
// The `[[notify]]` entries are told batch_finished when a run of the batch ends without the
// caller's cancel (every goal finished, or a batch budget stopped it).
Result<BatchEnd> run_batch(session::Runtime& runtime, const BatchRequest& request,
                           BatchObserver& observer, Clock& clock, const CancelToken& cancel);

// Sends batch_finished for `end` to `targets` (what run_batch does at its end).
void notify_batch_finished(session::Runtime& runtime, const std::vector<NotifyTarget>& targets,
                           const std::filesystem::path& workspace, const BatchEnd& end);

} // namespace ralph::app
