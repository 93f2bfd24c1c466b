#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/message.h"
#include "ralph/rlm/sandbox.h"

#include <atomic>
#include <memory>
#include <mutex>

namespace ralph::rlm {

// Counts and bounds one attempt's sub-queries. `wrap` gives the function the sandbox calls: it
// refuses once `limit` calls were made (or the attempt is cancelled) and sums the usage of those
// that ran. Thread-safe: batches call it from several threads at once. The wrapped function
// shares the counters, so it may outlive this object.
class SubQueryBudget {
public:
  SubQueryBudget(SubQueryFn inner, int limit, CancelToken cancel);

  SubQueryFn wrap() const;

  int limit() const;
  int used() const;    // calls let through, failed ones included
  int refused() const; // calls refused because the budget was spent
  Usage usage() const; // of the calls that answered

  // What the model is to be told, each once: `warning` when `used()` first reached 80 % of the
  // limit, `spent` when it reached the limit (instead of the warning if both happened at once).
  enum class Notice { none, warning, spent };
  Notice take_notice();

private:
  struct State;
  std::shared_ptr<State> m_state;
  bool m_warned = false;
  bool m_told_spent = false;
};

} // namespace ralph::rlm
