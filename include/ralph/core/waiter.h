#pragma once

#include <chrono>
#include <cstddef>
#include <poll.h>

namespace ralph {

// Waits for file descriptors the way poll(2) does. Injected so that a session hosted as a fiber
// (engine/) parks itself while its child process is quiet, instead of blocking the thread that
// carries a thousand other sessions.
class Waiter {
public:
  virtual ~Waiter() = default;
  // Sets each entry's `revents`; returns how many are ready, 0 when `timeout` passed first, or
  // -1 with errno set (EINTR included) as poll(2) does.
  virtual int poll(pollfd* fds, std::size_t count, std::chrono::milliseconds timeout) = 0;
};

// poll(2) itself: blocks the calling thread.
class BlockingWaiter final : public Waiter {
public:
  int poll(pollfd* fds, std::size_t count, std::chrono::milliseconds timeout) override {
    return ::poll(fds, count, static_cast<int>(timeout.count()));
  }
};

} // namespace ralph
