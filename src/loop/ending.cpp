#include "ralph/loop/ending.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace ralph::loop {
namespace {

// Why a passing attempt ends the run. Errors forgiven by fail_open checked nothing, so they are
// named, and a run that only they let through is "delivered unverified".
std::string passed_reason(const AttemptRecord& record) {
  std::vector<std::string> forgiven;
  std::vector<std::string> passed;
  for (const verify::Verdict& verdict : record.verdicts) {
    if (verdict.result == verify::Outcome::pass) {
      passed.push_back(verdict.verifier);
    } else {
      const std::string_view category = verdict.category.name();
      forgiven.push_back(fmt::format("{} error{}, fail_open", verdict.verifier,
                                     category.empty() ? "" : fmt::format(" ({})", category)));
    }
  }
  if (forgiven.empty()) {
    return fmt::format("verified on attempt {}", record.iteration);
  }
  if (passed.empty()) {
    return fmt::format("delivered unverified: {}", fmt::join(forgiven, "; "));
  }
  return fmt::format("delivered partly verified on attempt {}: {}; passed: {}", record.iteration,
                     fmt::join(forgiven, "; "), fmt::join(passed, ", "));
}

} // namespace

Ending budget_ran_out(BudgetKind spent, std::string_view when, int iteration) {
  return {Status::budget_exhausted,
          fmt::format("the {} budget ran out {} attempt {}", budget_name(spent), when, iteration),
          spent};
}

Ending ending_after_verdicts(const AttemptRecord& attempt, int max_iterations,
                             std::optional<BudgetKind> spent) {
  if (attempt.passed) {
    return {Status::completed, passed_reason(attempt)};
  }
  const auto blocking =
      std::find_if(attempt.verdicts.begin(), attempt.verdicts.end(), [](const verify::Verdict& v) {
        return v.result == verify::Outcome::fail && v.category == verify::Category::blocked;
      });
  if (blocking != attempt.verdicts.end()) {
    return {Status::blocked,
            fmt::format("{} says the goal is blocked: {}", blocking->verifier, blocking->feedback)};
  }
  if (spent) {
    return budget_ran_out(*spent, "after", attempt.iteration);
  }
  if (attempt.iteration >= max_iterations) {
    return {Status::budget_exhausted,
            fmt::format("{} of {} attempts used without passing verification", attempt.iteration,
                        max_iterations),
            BudgetKind::iterations};
  }
  return {};
}

} // namespace ralph::loop
