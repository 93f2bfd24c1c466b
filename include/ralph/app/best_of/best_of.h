#pragma once

#include "ralph/app/best_of/best_of_report.h"
#include "ralph/core/cancel.h"
#include "ralph/core/clock.h"
#include "ralph/core/error.h"
#include "ralph/core/event.h"
#include "ralph/session/runtime.h"
#include "ralph/session/session.h"

#include <filesystem>
#include <string>

namespace ralph::app {

// Best of N: one goal attempted N times at once.
struct BestOfRequest {
  // The goal, in the source workspace (canonical), with its configuration and outputs: each
  // attempt's session writes its traces to `outputs.trace_dir`/<k> and appends its events to
  // `outputs.events_file` (replaced first unless `append_events`), whose last line is the
  // ranking (`attempts_ranked`, under the best-of-N session). `session_id` names the
  // best-of-N session (empty: a new id). Must not resume a record; `kind` and `parent_id` are
  // not used (each attempt is a run under the best-of-N session).
  session::SessionRequest session;
  int attempts = 2; // at least 1
};

// Where the attempts are about to be made.
struct BestOfStart {
  std::string session_id;
  std::filesystem::path workspace;    // the source
  std::filesystem::path attempts_dir; // .ralph/attempts/<session>
  int attempts = 0;
};

// What happens during best of N, for a display (ninja's `Status`): one typed call per thing that
// happens. Nothing it does feeds back into the run.
class BestOfObserver {
public:
  virtual ~BestOfObserver() = default;
  // The configuration was checked; the attempts' workspaces are made next.
  virtual void on_start(const BestOfStart& start) = 0;
  // Cancelled while the workspaces were made: what was made stays in `attempts_dir` for
  // inspection; no attempt ran.
  virtual void on_interrupted_making_workspaces(const std::filesystem::path& attempts_dir) = 0;
  // Each event of attempt `attempt` (1-based), redacted, as its session emits it. Called from the
  // attempts' threads, several at once.
  virtual void on_event(int attempt, const Event& event) = 0;
};

// Runs `request.attempts` attempts of the goal at once on an engine, each a whole session (kind
// run, its parent the best-of-N session, recorded in the source's store) in its own workspace
// under .ralph/attempts/<session>/<k>: in git a worktree on branch ralph/attempts/<session>/<k>
// of the source as it is, else a copy. Each attempt's changes are measured and written to
// .ralph/attempts/<session>/<k>.diff; the verifiers rank them (passing first, then fewer changed
// lines, lower cost, fewer tokens) and the best passing one is applied to the source: one commit
// on its current branch (git) or its files copied over; nothing is applied when that cannot be
// done cleanly (`apply_error`, status failed). The best-of-N session is recorded with the outcome
// and what all attempts spent; its times come from `clock`. Configuration mistakes are errors
// before anything is made; so is every attempt failing to start the same way. `cancel` stops
// every attempt; then nothing is applied and the status is interrupted.
Result<BestOfReport> run_best_of(session::Runtime& runtime, const BestOfRequest& request,
                                 BestOfObserver& observer, Clock& clock, const CancelToken& cancel);

} // namespace ralph::app
