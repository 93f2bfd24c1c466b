#include "scheduler.h"

#include "fiber_io.h"

#include <algorithm>

namespace ralph::engine {
namespace {

// The longest the loop sleeps with nothing to do: posts and stops wake it at once anyway.
constexpr std::chrono::milliseconds k_idle_wait{1000};

} // namespace

Scheduler::Scheduler(std::size_t stack_bytes, std::function<void()> on_task_done)
    : m_stack_bytes(stack_bytes), m_on_task_done(std::move(on_task_done)),
      m_io(make_fiber_io(*this)) {}

Scheduler::~Scheduler() = default;

void Scheduler::post(Task task) {
  {
    std::lock_guard lock(m_posted_mutex);
    m_posted.push_back(std::move(task));
  }
  m_transfers.wakeup();
}

void Scheduler::stop() {
  {
    std::lock_guard lock(m_posted_mutex);
    m_stopping = true;
  }
  m_transfers.wakeup();
}

bool Scheduler::on_fiber() const {
  // The thread first: m_current is only ever touched on this scheduler's thread.
  return m_thread.load(std::memory_order_relaxed) == std::this_thread::get_id() &&
         m_current != nullptr;
}

void Scheduler::run() {
  m_thread.store(std::this_thread::get_id(), std::memory_order_relaxed);
  while (true) {
    take_posted();
    run_ready();
    {
      std::lock_guard lock(m_posted_mutex);
      if (m_stopping && m_fibers.empty() && m_posted.empty()) {
        break;
      }
    }
    wait_for_events();
  }
  m_thread.store(std::thread::id(), std::memory_order_relaxed);
}

void Scheduler::take_posted() {
  std::vector<Task> posted;
  {
    std::lock_guard lock(m_posted_mutex);
    posted.swap(m_posted);
  }
  for (Task& task : posted) {
    auto fiber =
        std::make_unique<Fiber>(m_stack_bytes, [this, task = std::move(task)] { task(*m_io); });
    m_ready.push_back(fiber.get());
    m_fibers.emplace(fiber.get(), std::move(fiber));
  }
}

void Scheduler::run_ready() {
  // Fibers made ready while these run (by their own spawns, say) wait for the next round, so
  // waiting descriptors and transfers are looked at between rounds.
  m_round.swap(m_ready);
  for (Fiber* fiber : m_round) {
    m_current = fiber;
    fiber->resume();
    m_current = nullptr;
    if (fiber->finished()) {
      m_fibers.erase(fiber);
      m_on_task_done();
    }
  }
  m_round.clear(); // keeps its capacity for the next swap
}

void Scheduler::wait_for_events() {
  auto now = SteadyClock::now();
  auto timeout = m_ready.empty() ? k_idle_wait : std::chrono::milliseconds(0);
  m_pollfds.clear();
  for (const Wait* wait : m_waits) {
    m_pollfds.insert(m_pollfds.end(), wait->fds, wait->fds + wait->count);
    if (wait->deadline != SteadyClock::time_point::max()) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(wait->deadline - now);
      timeout = std::clamp(left, std::chrono::milliseconds(0), timeout);
    }
  }
  m_transfers.run_once(m_pollfds.data(), m_pollfds.size(), timeout);

  now = SteadyClock::now();
  std::size_t offset = 0;
  std::erase_if(m_waits, [&](Wait* wait) {
    int ready = 0;
    for (std::size_t i = 0; i < wait->count; ++i) {
      wait->fds[i].revents = m_pollfds[offset + i].revents;
      ready += wait->fds[i].revents != 0 ? 1 : 0;
    }
    offset += wait->count;
    if (ready == 0 && now < wait->deadline) {
      return false;
    }
    wait->result = ready;
    m_ready.push_back(wait->fiber);
    return true;
  });
}

void Scheduler::park() {
  m_current->suspend();
}

void Scheduler::park_on(Wait& wait) {
  wait.fiber = m_current;
  m_waits.push_back(&wait);
  park();
}

int Scheduler::poll(pollfd* fds, std::size_t count, std::chrono::milliseconds timeout) {
  Wait wait{.fds = fds, .count = count};
  for (std::size_t i = 0; i < count; ++i) {
    fds[i].revents = 0;
  }
  if (timeout.count() >= 0) {
    wait.deadline = SteadyClock::now() + timeout;
  }
  park_on(wait);
  return wait.result;
}

void Scheduler::sleep_until(SteadyClock::time_point until) {
  Wait wait{.deadline = until};
  park_on(wait);
}

} // namespace ralph::engine
