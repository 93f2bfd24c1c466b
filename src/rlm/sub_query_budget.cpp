#include "rlm/sub_query_budget.h"

#include <fmt/format.h>

#include <utility>

namespace ralph::rlm {

struct SubQueryBudget::State {
  SubQueryFn inner;
  int limit = 0;
  CancelToken cancel;
  std::atomic<int> used{0};
  std::atomic<int> refused{0};
  mutable std::mutex mutex; // guards `usage`
  Usage usage;

  // Takes one call from the budget; false when none is left. A compare-and-swap rather than an
  // increment, so `used` never passes the limit, even for a moment.
  bool take() {
    int current = used.load();
    while (current < limit) {
      if (used.compare_exchange_weak(current, current + 1)) {
        return true;
      }
    }
    return false;
  }

  Result<SubAnswer> call(const SubQuery& query) {
    if (cancel.cancelled()) {
      return fail(ErrorKind::cancelled, "interrupted: the attempt was stopped");
    }
    if (!inner) {
      return fail(ErrorKind::tool, "llm_query is not available in this sandbox");
    }
    if (!take()) {
      ++refused;
      return fail(ErrorKind::tool,
                  fmt::format("sub-query budget spent: {0} of {0} llm_query calls used in this "
                              "attempt; answer with what you have",
                              limit));
    }
    auto answer = inner(query);
    if (answer) {
      std::lock_guard lock(mutex);
      usage += answer->usage;
    }
    return answer;
  }
};

SubQueryBudget::SubQueryBudget(SubQueryFn inner, int limit, CancelToken cancel)
    : m_state(std::make_shared<State>()) {
  m_state->inner = std::move(inner);
  m_state->limit = limit;
  m_state->cancel = std::move(cancel);
}

SubQueryFn SubQueryBudget::wrap() const {
  return [state = m_state](const SubQuery& query) { return state->call(query); };
}

int SubQueryBudget::limit() const {
  return m_state->limit;
}

int SubQueryBudget::used() const {
  return m_state->used.load();
}

int SubQueryBudget::refused() const {
  return m_state->refused.load();
}

Usage SubQueryBudget::usage() const {
  std::lock_guard lock(m_state->mutex);
  return m_state->usage;
}

SubQueryBudget::Notice SubQueryBudget::take_notice() {
  const int count = used();
  const int limit = m_state->limit;
  if (count == 0) {
    return Notice::none;
  }
  if (!m_told_spent && count >= limit) {
    m_told_spent = true;
    m_warned = true;
    return Notice::spent;
  }
  // 80 % in integers: count / limit >= 4 / 5.
  if (!m_warned && count * 5 >= limit * 4) {
    m_warned = true;
    return Notice::warning;
  }
  return Notice::none;
}

} // namespace ralph::rlm
