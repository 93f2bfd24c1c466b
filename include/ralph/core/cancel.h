#pragma once

#include <atomic>
#include <chrono>
#include <memory>

namespace ralph {

class Clock;

// A shared flag that long operations poll to stop early. Copies observe the same flag. A child
// token is cancelled with its parent, or on its own, or when its deadline passes (on the steady
// clock, or on the Clock it was given, which must outlive every copy of the token), so a budget
// can stop one attempt without stopping the run. Thread-safe; `cancel()` is async-signal-safe (a
// lock-free atomic store).
class CancelToken {
public:
  using time_point = std::chrono::steady_clock::time_point;

  CancelToken() : m_state(std::make_shared<State>()) {}

  void cancel() const { m_state->flag.store(true, std::memory_order_relaxed); }

  bool cancelled() const;

  // True when this token's own deadline (not an ancestor's flag) has passed.
  bool deadline_passed() const { return past(*m_state); }

  CancelToken child(time_point deadline = time_point::max()) const {
    return CancelToken(std::make_shared<State>(m_state, deadline, nullptr));
  }
  // A child whose deadline is a time of `clock` (a fake clock in tests).
  CancelToken child(time_point deadline, const Clock& clock) const {
    return CancelToken(std::make_shared<State>(m_state, deadline, &clock));
  }

  // The raw flag of this token, for a signal handler that must not touch the shared_ptr.
  std::atomic<bool>* flag() const { return &m_state->flag; }

private:
  struct State {
    State() = default;
    State(std::shared_ptr<const State> parent_state, time_point until, const Clock* on)
        : parent(std::move(parent_state)), deadline(until), clock(on) {}
    std::atomic<bool> flag{false};
    std::shared_ptr<const State> parent;
    time_point deadline = time_point::max();
    const Clock* clock = nullptr; // null: the steady clock
  };

  explicit CancelToken(std::shared_ptr<State> state) : m_state(std::move(state)) {}

  static bool past(const State& state);

  std::shared_ptr<State> m_state;
};

} // namespace ralph
