#include "ralph/loop/answer_check.h"

#include "feedback.h"
#include "run_verifiers.h"

#include <algorithm>

namespace ralph::loop {

AnswerCheck check_answer(std::vector<VerifierEntry>& verifiers, const verify::Attempt& attempt,
                         int max_iterations, const CancelToken& cancel) {
  AnswerCheck check;
  check.attempt.iteration = attempt.iteration;
  check.attempt.answer = attempt.answer;
  check.attempt.verdicts = run_verifiers(verifiers, attempt, cancel);
  check.attempt.verified = true;
  const auto& verdicts = check.attempt.verdicts;
  check.attempt.passed = std::none_of(verdicts.begin(), verdicts.end(), verdict_failed);
  check.verified = !verdicts.empty() &&
                   std::all_of(verdicts.begin(), verdicts.end(),
                               [](const auto& v) { return v.result == verify::Outcome::pass; });
  for (const verify::Verdict& verdict : verdicts) {
    if (verdict_failed(verdict) && verdict.result == verify::Outcome::error) {
      check.unchecked.push_back(verdict);
    }
  }
  if (!check.attempt.passed) {
    check.feedback = failure_feedback(verdicts, {}, attempt.iteration, max_iterations, "");
  }
  return check;
}

} // namespace ralph::loop
