#pragma once

#include "ralph/core/cancel.h"
#include "ralph/rlm/sandbox.h"

#include <span>
#include <vector>

namespace ralph::rlm {

struct BatchAnswers {
  std::vector<Result<SubAnswer>> answers; // in the order of the queries
  int calls = 0;                          // how many times the function was called
};

// Calls `ask` once per query, at most `max_concurrent` calls at a time on helper threads (on
// the calling thread when one at a time is all that is allowed or needed). Queries not started
// when `cancel` fires get a `cancelled` error. `ask` throwing becomes that query's error.
// Returns when every call has returned.
BatchAnswers run_batch(std::span<const SubQuery> queries, const SubQueryFn& ask, int max_concurrent,
                       const CancelToken& cancel);

// `ask(query)`, with an exception turned into an error.
Result<SubAnswer> ask_safely(const SubQueryFn& ask, const SubQuery& query);

} // namespace ralph::rlm
