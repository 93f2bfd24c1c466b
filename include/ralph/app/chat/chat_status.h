#pragma once

#include "ralph/core/event.h"
#include "ralph/core/settings.h"
#include "ralph/core/status.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ralph::app {

// Where a chat's goal stands.
enum class GoalPhase {
  starting, // set, not yet at its first attempt (or between runs)
  running,  // an attempt runs (or its verifiers do)
  held,     // waits for release_hold: paused, stopped, or it could not start
  ended,    // completed, out of budget, stalled, blocked or failed
};

// The chat's goal as it stands; every text redacted.
struct GoalStatus {
  std::string text;
  std::string session_id; // its own session; empty until its first attempt
  GoalPhase phase = GoalPhase::starting;
  int attempt = 0;                // running: the attempt under way
  int max_attempts = 0;           // running: of how many
  bool verifying = false;         // running: its verifiers are at work
  Status status = Status::active; // ended: how
  std::string reason;             // held or ended: why, one line
  // What the chat added to the configured verifiers for it (/verify, /judge).
  std::vector<std::string> added_commands;
  std::string added_judge; // empty: the configured judge
};

// The verdicts of the latest attempt that was verified; every text redacted.
struct LastVerdicts {
  int attempt = 0;
  std::vector<event::VerdictGiven> verdicts; // empty: none yet
};

// The budgets of the goal (or of the next goal when none is active): what it used and its limits.
struct BudgetStatus {
  int attempt = 0; // the latest attempt of the goal's current run; 0: none yet
  int max_iterations = 0;
  int max_steps = 0;           // per attempt
  std::int64_t tokens = 0;     // used by the goal, its judges' included
  std::int64_t max_tokens = 0; // 0: no limit
  double max_cost_usd = 0;     // 0: no limit
  Duration elapsed{0};         // the goal's time so far (by the chat's clock)
  Duration max_time{0};        // 0: no limit
  // The goal's settings do not apply (a budget recorded wrong): the limits above are unknown.
  std::string problem;
};

// What a chat shows of itself: the data behind `/status` and `/budget`.
struct ChatStatus {
  std::optional<GoalStatus> goal; // none: no goal was set (or /clear dropped it)
  LastVerdicts last_verdicts;
  BudgetStatus budgets;
};

} // namespace ralph::app
