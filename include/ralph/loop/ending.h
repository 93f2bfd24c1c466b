#pragma once

#include "ralph/core/settings.h"
#include "ralph/core/status.h"
#include "ralph/loop/outer_loop.h"

#include <optional>
#include <string>
#include <string_view>

namespace ralph::loop {

// How a run ends, once decided.
struct Ending {
  Status status = Status::active;   // active: it has not ended
  std::string reason;               // one line
  std::optional<BudgetKind> budget; // which budget ran out, for the notice
};

// `spent` ran out `when` ("during", "after") attempt `iteration`.
Ending budget_ran_out(BudgetKind spent, std::string_view when, int iteration);

// What a verified attempt means for its run: `completed` when it passed; `blocked` when a
// verifier says the goal is; `budget_exhausted` when `spent` names a token, cost or time budget
// used up, or when it was the last of `max_iterations` attempts; otherwise `active` (feedback,
// and another attempt). The outer loop and the Stop hook decide with it alike.
Ending ending_after_verdicts(const AttemptRecord& attempt, int max_iterations,
                             std::optional<BudgetKind> spent);

} // namespace ralph::loop
