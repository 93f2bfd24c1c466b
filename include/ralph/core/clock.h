#pragma once

#include "ralph/core/cancel.h"

#include <chrono>

namespace ralph {

// Time as the runtime sees it. Injected so tests can run backoff and budgets without waiting.
class Clock {
public:
  using time_point = std::chrono::steady_clock::time_point;

  virtual ~Clock() = default;
  virtual time_point now() const = 0;
  // The calendar time, for what is recorded or shown as a date (a fake clock moves it with now()).
  virtual std::chrono::system_clock::time_point wall_now() const {
    return std::chrono::system_clock::now();
  }
  // Waits `duration` or until `cancel` fires; returns false when cancelled.
  virtual bool sleep_for(std::chrono::milliseconds duration, const CancelToken& cancel) = 0;
};

// The real clock. `sleep_for` wakes within a few milliseconds of a cancel.
class SystemClock final : public Clock {
public:
  time_point now() const override { return std::chrono::steady_clock::now(); }
  bool sleep_for(std::chrono::milliseconds duration, const CancelToken& cancel) override;
};

} // namespace ralph
