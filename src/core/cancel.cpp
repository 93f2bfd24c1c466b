#include "ralph/core/cancel.h"

#include "ralph/core/clock.h"

namespace ralph {

bool CancelToken::past(const State& state) {
  if (state.deadline == time_point::max()) {
    return false;
  }
  const time_point now =
      state.clock != nullptr ? state.clock->now() : std::chrono::steady_clock::now();
  return now >= state.deadline;
}

bool CancelToken::cancelled() const {
  for (const State* state = m_state.get(); state != nullptr; state = state->parent.get()) {
    if (state->flag.load(std::memory_order_relaxed) || past(*state)) {
      return true;
    }
  }
  return false;
}

} // namespace ralph
