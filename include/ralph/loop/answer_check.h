#pragma once

#include "ralph/core/cancel.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/verify/attempt.h"
#include "ralph/verify/verdict.h"

#include <string>
#include <vector>

namespace ralph::loop {

// Whether a verdict stands against an answer once its error policy is applied: a fail_open error
// (a check that could not be made) does not, unless it was stopped.
bool verdict_failed(const verify::Verdict& verdict);

// An answer checked once by verifiers outside a run (the Stop hook; a `verify` request), as an
// attempt of the run would be.
struct AnswerCheck {
  AttemptRecord attempt; // its iteration, verdicts (in the verifiers' order) and `passed`
  bool verified = false; // every verdict passed: nothing was let through unchecked
  std::vector<verify::Verdict> unchecked; // errors that stand: a check could not be made
  std::string feedback; // what the agent is told when it did not pass (failure_feedback)
};

// Runs `verifiers` on `attempt` (independent ones at once) and judges the verdicts with their
// error policies, as the outer loop does; `max_iterations` words the feedback (0: it names no
// attempt).
AnswerCheck check_answer(std::vector<VerifierEntry>& verifiers, const verify::Attempt& attempt,
                         int max_iterations, const CancelToken& cancel);

} // namespace ralph::loop
