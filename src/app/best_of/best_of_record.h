#pragma once

#include "app/best_of/attempts.h"

#include "ralph/app/best_of/best_of_report.h"
#include "ralph/core/redactor.h"
#include "ralph/session/session.h"
#include "ralph/store/session_store.h"

#include <chrono>
#include <string>
#include <vector>

namespace ralph::app {

// The best-of-N session's row as it starts: the goal in the source workspace, with its
// configuration, owned by this process; created at `now` (calendar time).
store::SessionRow parent_row(const std::string& id, const session::SessionRequest& goal,
                             const Redactor& redactor, std::chrono::system_clock::time_point now);

// The row once the attempts ended: the outcome (the winner and why, or why nothing was applied),
// what all the attempts spent, and no owner any more.
void finish_row(store::SessionRow& row, const BestOfReport& report,
                const std::vector<Candidate>& candidates, const Redactor& redactor,
                std::chrono::milliseconds elapsed, std::chrono::system_clock::time_point now);

// The row when no attempt could start: failed with `error`'s message, and no owner any more.
void fail_row(store::SessionRow& row, const Error& error);

} // namespace ralph::app
