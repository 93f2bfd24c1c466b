#pragma once

#include "ralph/core/clock.h"

#include <chrono>
#include <vector>

namespace ralph::testing {

// A clock that never waits: sleep_for advances time at once and records the duration asked.
class FakeClock final : public Clock {
public:
  time_point now() const override { return m_now; }
  bool sleep_for(std::chrono::milliseconds duration, const CancelToken& cancel) override {
    m_sleeps.push_back(duration);
    m_now += duration;
    return !cancel.cancelled();
  }
  void advance(std::chrono::milliseconds duration) { m_now += duration; }
  const std::vector<std::chrono::milliseconds>& sleeps() const { return m_sleeps; }

private:
  time_point m_now{};
  std::vector<std::chrono::milliseconds> m_sleeps;
};

} // namespace ralph::testing
