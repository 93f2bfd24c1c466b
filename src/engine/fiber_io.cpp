#include "fiber_io.h"

#include "scheduler.h"

#include "ralph/core/try.h"
#include "ralph/http/curl_transport.h"

#include <algorithm>
#include <optional>

namespace ralph::engine {
namespace {

using std::chrono::milliseconds;

// How often a sleeping fiber looks at its cancel token.
constexpr milliseconds k_cancel_check{20};

class FiberClock final : public Clock {
public:
  explicit FiberClock(Scheduler& scheduler) : m_scheduler(scheduler) {}

  time_point now() const override { return std::chrono::steady_clock::now(); }

  bool sleep_for(milliseconds duration, const CancelToken& cancel) override {
    if (!m_scheduler.on_fiber()) {
      return m_blocking.sleep_for(duration, cancel);
    }
    const auto deadline = now() + duration;
    while (!cancel.cancelled()) {
      const auto at = now();
      if (at >= deadline) {
        return true;
      }
      m_scheduler.sleep_until(std::min(deadline, at + k_cancel_check));
    }
    return false;
  }

private:
  Scheduler& m_scheduler;
  SystemClock m_blocking;
};

class FiberWaiter final : public Waiter {
public:
  explicit FiberWaiter(Scheduler& scheduler) : m_scheduler(scheduler) {}

  int poll(pollfd* fds, std::size_t count, milliseconds timeout) override {
    if (timeout.count() == 0 || !m_scheduler.on_fiber()) {
      return ::poll(fds, count, static_cast<int>(timeout.count()));
    }
    return m_scheduler.poll(fds, count, timeout);
  }

private:
  Scheduler& m_scheduler;
};

class FiberTransport final : public http::Transport {
public:
  explicit FiberTransport(Scheduler& scheduler) : m_scheduler(scheduler) {}

  Result<http::Response> send(const http::Request& request, const http::BodySink& sink,
                              const CancelToken& cancel) override {
    if (!m_scheduler.on_fiber()) {
      if (!m_blocking) {
        m_blocking = std::make_unique<http::CurlTransport>();
      }
      return m_blocking->send(request, sink, cancel);
    }
    std::optional<Result<http::Response>> outcome;
    Fiber* fiber = m_scheduler.current();
    TRY(m_scheduler.transfers().start(request, sink, cancel,
                                      [&outcome, fiber, this](Result<http::Response> result) {
                                        outcome = std::move(result);
                                        m_scheduler.make_ready(fiber);
                                      }));
    while (!outcome) {
      m_scheduler.park();
    }
    return std::move(*outcome);
  }

private:
  Scheduler& m_scheduler;
  std::unique_ptr<http::CurlTransport> m_blocking; // for calls from outside the fibers
};

class FiberIo final : public Io {
public:
  explicit FiberIo(Scheduler& scheduler)
      : m_scheduler(scheduler), m_clock(scheduler), m_waiter(scheduler), m_runner(m_waiter) {}

  Clock& clock() override { return m_clock; }
  tools::ProcessRunner& runner() override { return m_runner; }
  Waiter& waiter() override { return m_waiter; }
  std::unique_ptr<http::Transport> make_transport() override {
    return std::make_unique<FiberTransport>(m_scheduler);
  }

private:
  Scheduler& m_scheduler;
  FiberClock m_clock;
  FiberWaiter m_waiter;
  tools::PosixProcessRunner m_runner;
};

} // namespace

std::unique_ptr<Io> make_fiber_io(Scheduler& scheduler) {
  return std::make_unique<FiberIo>(scheduler);
}

} // namespace ralph::engine
