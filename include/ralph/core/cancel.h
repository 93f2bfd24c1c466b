#pragma once

#include <atomic>
#include <memory>

namespace ralph {

// A shared flag that long operations poll to stop early. Copies observe the same flag.
// Thread-safe; `cancel()` is async-signal-safe (a lock-free atomic store).
class CancelToken {
public:
  CancelToken() : m_flag(std::make_shared<std::atomic<bool>>(false)) {}

  void cancel() const { m_flag->store(true, std::memory_order_relaxed); }
  bool cancelled() const { return m_flag->load(std::memory_order_relaxed); }
  // The raw flag, for a signal handler that must not touch the shared_ptr.
  std::atomic<bool>* flag() const { return m_flag.get(); }

private:
  std::shared_ptr<std::atomic<bool>> m_flag;
};

} // namespace ralph
