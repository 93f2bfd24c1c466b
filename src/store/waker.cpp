#include "store/waker.h"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <utility>

namespace ralph::store {

Result<Waker> Waker::make() {
  const int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) {
    return fail(ErrorKind::store, fmt::format("eventfd: {}", std::strerror(errno)));
  }
  return Waker(fd);
}

Waker::Waker(Waker&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}

Waker::~Waker() {
  if (m_fd >= 0) {
    ::close(m_fd);
  }
}

Waker::Outcome Waker::wait(int fd, std::chrono::milliseconds timeout) {
  std::array<pollfd, 2> fds{pollfd{.fd = m_fd, .events = POLLIN, .revents = 0},
                            pollfd{.fd = fd, .events = POLLIN, .revents = 0}};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    // Rounded up: a wait of 0.4 ms must not turn into a busy loop of 0 ms polls.
    const int ms = left.count() <= 0 ? 0 : static_cast<int>(left.count()) + 1;
    const int ready = ::poll(fds.data(), fd >= 0 ? 2 : 1, ms);
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready <= 0) {
      return Outcome::timed_out;
    }
    if ((fds[0].revents & POLLIN) != 0) {
      std::uint64_t count = 0;
      (void)::read(m_fd, &count, sizeof count);
      return Outcome::woken;
    }
    // POLLHUP and POLLERR count as readable: reading is what reports them.
    return Outcome::readable;
  }
}

void Waker::wake() {
  const std::uint64_t one = 1;
  (void)::write(m_fd, &one, sizeof one);
}

} // namespace ralph::store
