#pragma once

#include "ralph/core/clock.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

namespace ralph::testing {

// A clock that never waits: sleep_for advances time at once and records the duration asked.
// `now()` may be read from any thread (deadlines of cancel tokens are checked by helper threads).
class FakeClock final : public Clock {
public:
  time_point now() const override { return time_point(time_point::duration(m_ticks.load())); }
  // 2026-01-01T00:00:00Z, moving with now().
  std::chrono::system_clock::time_point wall_now() const override {
    return std::chrono::system_clock::time_point(std::chrono::seconds(1767225600)) +
           std::chrono::duration_cast<std::chrono::system_clock::duration>(
               now().time_since_epoch());
  }
  bool sleep_for(std::chrono::milliseconds duration, const CancelToken& cancel) override {
    {
      const std::lock_guard lock(m_mutex);
      m_sleeps.push_back(duration);
    }
    advance(duration);
    return !cancel.cancelled();
  }
  void advance(std::chrono::milliseconds duration) {
    m_ticks += std::chrono::duration_cast<time_point::duration>(duration).count();
  }
  std::vector<std::chrono::milliseconds> sleeps() const {
    const std::lock_guard lock(m_mutex);
    return m_sleeps;
  }

private:
  std::atomic<time_point::rep> m_ticks{0};
  mutable std::mutex m_mutex;
  std::vector<std::chrono::milliseconds> m_sleeps;
};

} // namespace ralph::testing
