#pragma once

#include "ralph/core/error.h"

#include <chrono>

namespace ralph::store {

// What a ChangeFeed's wait() blocks on: a descriptor to read (a socket, an inotify queue) and an
// eventfd that wake() writes from another thread, both in one poll(), so a wait ends at once on
// either and costs nothing meanwhile. A wake() with no wait running ends the next one.
class Waker {
public:
  static Result<Waker> make();
  Waker(Waker&& other) noexcept;
  Waker& operator=(Waker&&) = delete;
  Waker(const Waker&) = delete;
  Waker& operator=(const Waker&) = delete;
  ~Waker();

  enum class Outcome { readable, woken, timed_out };
  // Until `fd` has something to read (-1: nothing to watch), wake(), or `timeout`. A wake is
  // used up by the wait it ends.
  Outcome wait(int fd, std::chrono::milliseconds timeout);
  void wake();

private:
  explicit Waker(int fd) : m_fd(fd) {}
  int m_fd;
};

} // namespace ralph::store
