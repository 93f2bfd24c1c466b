#include "ralph/notify/dispatcher.h"

#include "ralph/core/cancel.h"
#include "ralph/core/clock.h"
#include "ralph/http/curl_transport.h"
#include "ralph/notify/command_hook.h"
#include "ralph/notify/webhook.h"
#include "ralph/tools/process_runner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <exception>

namespace ralph::notify {
namespace {

constexpr const char* k_cut_short = "the process ended before it was delivered";

// What tells targets apart: entries of different files, or with another URL or program.
std::string lane_key(const NotifyTarget& target) {
  return fmt::format("{}\n{}\n{}", target.origin, target.url, fmt::join(target.command, "\n"));
}

} // namespace

Dispatcher::Dispatcher(Warn warn, std::size_t capacity)
    : m_warn(std::move(warn)), m_capacity(capacity) {}

Dispatcher::~Dispatcher() {
  drain();
}

void Dispatcher::report(const Job& job, const std::string& why) {
  if (m_warn) {
    m_warn(fmt::format("notify: {} did not get {} of {}: {}", describe_target(job.target),
                       to_string(job.notification.event), job.notification.about, why));
  }
}

void Dispatcher::post(const NotifyTarget& target, std::string secret, Notification notification) {
  Job job{.target = target, .secret = std::move(secret), .notification = std::move(notification)};
  std::unique_lock lock(m_mutex);
  auto& lane = m_lanes[lane_key(target)];
  if (!lane) {
    lane = std::make_unique<Lane>();
  }
  if (m_closed || lane->queue.size() >= m_capacity) {
    const char* why = m_closed ? "posted after the notifications were drained"
                               : "too many notifications waiting; this one was dropped";
    ++m_lost;
    lock.unlock();
    report(job, why);
    return;
  }
  lane->queue.push_back(std::move(job));
  if (!lane->thread.joinable()) {
    lane->thread = std::thread([this, &lane = *lane] { work(lane); });
  }
  m_changed.notify_all();
}

void Dispatcher::deliver(const Job& job, const CancelToken& stop) {
  Result<void> delivered;
  try {
    if (job.target.url.empty()) {
      tools::PosixProcessRunner runner;
      delivered = run_command_hook(runner, job.target, job.notification, stop);
    } else {
      // One per delivery: a transport is cheap until it sends, and a kept one would hold a
      // connection to a receiver that may be gone by the next event.
      http::CurlTransport transport;
      SystemClock clock;
      delivered = deliver_webhook(transport, clock, job.target, job.notification, job.secret, stop);
    }
  } catch (const std::exception& e) {
    delivered = fail(ErrorKind::internal, fmt::format("internal error: {}", e.what()));
  }
  if (!delivered) {
    const bool stopped = delivered.error().kind == ErrorKind::cancelled;
    {
      const std::lock_guard lock(m_mutex);
      ++m_lost;
    }
    report(job, stopped ? k_cut_short : delivered.error().message);
  }
}

void Dispatcher::work(Lane& lane) {
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_changed.wait(lock, [&] { return !lane.queue.empty() || m_closed; });
    if (lane.queue.empty()) {
      return;
    }
    lane.current = std::move(lane.queue.front());
    lane.queue.pop_front();
    const bool stopped = lane.stop.cancelled();
    lock.unlock();
    if (stopped) {
      report(*lane.current, k_cut_short);
    } else {
      deliver(*lane.current, lane.stop);
    }
    lock.lock();
    m_lost += stopped ? 1 : 0;
    lane.current.reset();
    m_changed.notify_all();
  }
}

int Dispatcher::drain() {
  std::unique_lock lock(m_mutex);
  // Each target's deadline: the longest timeout of its deliveries, from now.
  const auto now = std::chrono::steady_clock::now();
  std::map<Lane*, std::chrono::steady_clock::time_point> deadlines;
  for (const auto& [key, lane] : m_lanes) {
    std::chrono::milliseconds wait{0};
    for (const Job& job : lane->queue) {
      wait = std::max(wait, job.target.timeout);
    }
    if (lane->current) {
      wait = std::max(wait, lane->current->target.timeout);
    }
    deadlines[lane.get()] = now + wait;
  }
  m_closed = true;
  m_changed.notify_all();
  for (;;) {
    auto next = std::chrono::steady_clock::time_point::max();
    for (const auto& [lane, deadline] : deadlines) {
      if (lane->idle() || lane->stop.cancelled()) {
        continue;
      }
      if (deadline <= std::chrono::steady_clock::now()) {
        lane->stop.cancel(); // what is left is reported as cut short
        continue;
      }
      next = std::min(next, deadline);
    }
    if (next == std::chrono::steady_clock::time_point::max()) {
      break;
    }
    m_changed.wait_until(lock, next);
  }
  std::vector<std::thread*> threads;
  for (auto& [key, lane] : m_lanes) {
    if (lane->thread.joinable()) {
      threads.push_back(&lane->thread);
    }
  }
  lock.unlock();
  for (std::thread* thread : threads) {
    thread->join();
  }
  lock.lock();
  return m_lost;
}

} // namespace ralph::notify
