#pragma once

#include "cli/batch_goals.h"
#include "cli/run_report.h"

#include "ralph/core/cancel.h"
#include "ralph/core/config.h"
#include "ralph/core/event.h"
#include "ralph/engine/io.h"
#include "ralph/session/runtime.h"
#include "ralph/store/session_store.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ralph::cli {

// One goal of a batch, ready to run as a session.
struct GoalLaunch {
  session::Runtime* runtime = nullptr;
  std::vector<Setting> flags; // the batch's command line, over a resumed session's record
  const BatchGoal* goal = nullptr;
  Config config;                   // a new session's: the batch's with the goal's keys over it
  std::filesystem::path workspace; // its own copy or worktree
  std::string session_id;
  bool resume = false; // go on from the session's record when there is one
  store::SessionStore* store = nullptr;
  const CancelToken* parent = nullptr; // the batch's: Ctrl-C and the batch budgets
  EventSink* events = nullptr;         // every event of the session, redacted
};

// Runs the goal as a session on `io`, recorded in the store: new, or resumed from its record
// with the configuration it was recorded with (the batch's flags and the goal's keys over it)
// and its budgets carried on. What kept it from starting (an agent that cannot be built, a
// record that cannot be read) is a `failed` report with that error. Never throws.
SessionReport run_batch_goal(engine::Io& io, const GoalLaunch& launch);

} // namespace ralph::cli
