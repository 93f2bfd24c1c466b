#pragma once

#include "ralph/app/batch/goals_file.h"
#include "ralph/core/cancel.h"
#include "ralph/core/config.h"
#include "ralph/core/event.h"
#include "ralph/engine/io.h"
#include "ralph/session/report.h"
#include "ralph/session/runtime.h"
#include "ralph/store/session_store.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ralph::app {

// One goal of a batch (or of a queue), ready to run as a session.
struct GoalLaunch {
  session::Runtime* runtime = nullptr;
  std::string batch;                           // the batch's id, named in the goal's notifications
  const std::vector<Setting>* flags = nullptr; // the command's, over a resumed session's record
  const BatchGoal* goal = nullptr;             // its config and typed keys, read once
  std::filesystem::path workspace;             // its own copy or worktree
  std::string session_id;
  bool resume = false; // go on from the session's record when there is one
  store::SessionStore* store = nullptr;
  const CancelToken* parent = nullptr; // the batch's (Ctrl-C, its budgets) or the goal's lease
  EventSink* events = nullptr;         // every event of the session, redacted
};

// Runs the goal as a session on `io`, recorded in the store. New: with `goal->config`. Resumed
// from its record: with the configuration it was recorded with, the command's flags over it and
// the goal's typed keys over them, its budgets carried on; the goal's line is never read again.
// What kept it from starting (an agent that cannot be built, a record that cannot be read) is a
// `failed` report with that error. Never throws.
session::SessionReport run_batch_goal(engine::Io& io, const GoalLaunch& launch);

} // namespace ralph::app
