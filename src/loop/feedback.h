#pragma once

#include "test_progress.h"

#include "ralph/loop/answer_check.h"
#include "ralph/loop/budget.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/verify/attempt.h"
#include "ralph/verify/verdict.h"

#include <string>
#include <vector>

namespace ralph::loop {

// The user message of `append` feedback: which verifiers failed, in which category, why, the
// excerpt of each failing command, and how its failing tests changed (`changes`, one per verdict,
// or empty). `marker` is non-empty in verifier-first runs.
std::string failure_feedback(const std::vector<verify::Verdict>& verdicts,
                             const std::vector<TestChange>& changes, int iteration,
                             int max_iterations, const std::string& marker);

// Feedback for an attempt that ended without a verifiable answer (pre-check).
std::string precheck_feedback(const AttemptRecord& attempt, int max_steps_hint);

struct Continuation {
  std::string goal;
  int iteration = 0; // the attempt about to start
  int max_iterations = 0;
  std::string runtime_summary;
  std::string last_evidence;
  std::string reason;
  std::string marker; // non-empty in verifier-first runs
};

// Seed 004's compact continuation prompt, which replaces the history in `continue` mode:
// objective, iteration i/N, runtime summary, last evidence, reason, and the Plan -> Act ->
// Verify -> Reflect -> Retry instruction.
std::string continuation_prompt(const Continuation& continuation);

// One attempt in a few lines for the runtime summary: its tool calls and outcome.
std::string summarize_attempt(const AttemptRecord& attempt,
                              const std::vector<verify::ToolRecord>& tools);

// The most recent command evidence among the failed `verdicts` (all of them when none failed), as
// text for people and the agent; when none has evidence, each of those verdicts in a line.
std::string describe_last_evidence(const std::vector<verify::Verdict>& verdicts);

// The notice appended to the answer when a budget ran out (seed 004's, with the last evidence).
std::string budget_notice(int attempts, BudgetKind kind, bool verifying,
                          const std::vector<verify::Verdict>& last);

} // namespace ralph::loop
