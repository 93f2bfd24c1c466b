#pragma once

#include "fiber.h"

#include "ralph/engine/io.h"
#include "ralph/http/transfer_loop.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <poll.h>
#include <thread>
#include <unordered_map>
#include <vector>

namespace ralph::engine {

// One engine thread: its fibers, the one TransferLoop all their HTTP goes through, and what each
// parked fiber waits for (its transfer's end, file descriptors, a time). run() is the thread's
// body; post() and stop() may be called from anywhere.
class Scheduler {
public:
  using Task = std::function<void(Io& io)>;
  using SteadyClock = std::chrono::steady_clock;

  // `on_task_done` runs on this scheduler's thread each time a task returns.
  Scheduler(std::size_t stack_bytes, std::function<void()> on_task_done);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  void post(Task task);
  // The loop ends once every task has returned.
  void stop();
  void run();

  // Whether the caller is one of this scheduler's fibers (on its thread). Any thread.
  bool on_fiber() const;

  // From one of this scheduler's fibers only:
  // Parks the fiber until make_ready() (from the loop's callbacks).
  void park();
  // poll(2) semantics; parks the fiber until a descriptor is ready or `timeout` passed.
  int poll(pollfd* fds, std::size_t count, std::chrono::milliseconds timeout);
  void sleep_until(SteadyClock::time_point until);
  Fiber* current() { return m_current; }
  void make_ready(Fiber* fiber) { m_ready.push_back(fiber); }
  http::TransferLoop& transfers() { return m_transfers; }

private:
  // A parked fiber waiting for descriptors or a time (a sleep has no descriptors).
  struct Wait {
    Fiber* fiber = nullptr;
    pollfd* fds = nullptr;
    std::size_t count = 0;
    SteadyClock::time_point deadline = SteadyClock::time_point::max();
    int result = 0;
  };

  void take_posted();
  void run_ready();
  void wait_for_events();
  void park_on(Wait& wait);

  std::size_t m_stack_bytes;
  std::function<void()> m_on_task_done;
  std::unique_ptr<Io> m_io; // the Io every task on this thread is given
  http::TransferLoop m_transfers;

  std::mutex m_posted_mutex;
  std::vector<Task> m_posted;
  bool m_stopping = false;

  std::atomic<std::thread::id> m_thread;
  std::unordered_map<Fiber*, std::unique_ptr<Fiber>> m_fibers;
  std::vector<Fiber*> m_ready;
  std::vector<Fiber*> m_round; // the fibers run_ready() is running
  std::vector<Wait*> m_waits;
  std::vector<pollfd> m_pollfds; // the descriptors of all waits, for one run_once
  Fiber* m_current = nullptr;
};

} // namespace ralph::engine
