#pragma once

#include <atomic>
#include <chrono>
#include <memory>

namespace ralph {

// A shared flag that long operations poll to stop early. Copies observe the same flag. A child
// token is cancelled with its parent, or on its own, or when its deadline passes (steady clock),
// so a budget can stop one attempt without stopping the run. Thread-safe; `cancel()` is
// async-signal-safe (a lock-free atomic store).
class CancelToken {
public:
  using time_point = std::chrono::steady_clock::time_point;

  CancelToken() : m_state(std::make_shared<State>()) {}

  void cancel() const { m_state->flag.store(true, std::memory_order_relaxed); }

  bool cancelled() const {
    for (const State* state = m_state.get(); state != nullptr; state = state->parent.get()) {
      if (state->flag.load(std::memory_order_relaxed) || past(state->deadline)) {
        return true;
      }
    }
    return false;
  }

  // True when this token's own deadline (not an ancestor's flag) has passed.
  bool deadline_passed() const { return past(m_state->deadline); }

  CancelToken child(time_point deadline = time_point::max()) const {
    return CancelToken(std::make_shared<State>(m_state, deadline));
  }

  // The raw flag of this token, for a signal handler that must not touch the shared_ptr.
  std::atomic<bool>* flag() const { return &m_state->flag; }

private:
  struct State {
    State() = default;
    State(std::shared_ptr<const State> parent_state, time_point until)
        : parent(std::move(parent_state)), deadline(until) {}
    std::atomic<bool> flag{false};
    std::shared_ptr<const State> parent;
    time_point deadline = time_point::max();
  };

  explicit CancelToken(std::shared_ptr<State> state) : m_state(std::move(state)) {}

  static bool past(time_point deadline) {
    return deadline != time_point::max() && std::chrono::steady_clock::now() >= deadline;
  }

  std::shared_ptr<State> m_state;
};

} // namespace ralph
