#include "ralph/core/clock.h"

#include <algorithm>
#include <thread>

namespace ralph {

bool SystemClock::sleep_for(std::chrono::milliseconds duration, const CancelToken& cancel) {
  // Short slices keep Ctrl-C responsive without a condition variable shared with the handler,
  // and a loop that sleeps until another thread's cancel (a worker waiting for its goals' stages)
  // wakes within a few milliseconds of it.
  constexpr std::chrono::milliseconds k_slice{5};
  const auto deadline = now() + duration;
  while (!cancel.cancelled()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now());
    if (left.count() <= 0) {
      return true;
    }
    std::this_thread::sleep_for(std::min(left, k_slice));
  }
  return false;
}

} // namespace ralph
