#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <stop_token>
#include <thread>

namespace ralph::engine {

// Runs jobs one at a time, in the order posted, on a thread of its own: blocking work (a worker's
// clones, worktrees, commits and pushes) that must not hold up the thread that posts it.
// Destroying it waits for the running job; the jobs not started yet are dropped. A job must not
// throw.
class JobThread {
public:
  using Job = std::function<void()>;

  JobThread() : m_thread([this](const std::stop_token& stop) { run(stop); }) {}
  JobThread(const JobThread&) = delete;
  JobThread& operator=(const JobThread&) = delete;

  void post(Job job) {
    {
      std::lock_guard lock(m_mutex);
      m_jobs.push_back(std::move(job));
    }
    m_posted.notify_one();
  }

private:
  void run(const std::stop_token& stop) {
    for (;;) {
      Job job;
      {
        std::unique_lock lock(m_mutex);
        m_posted.wait(lock, stop, [this] { return !m_jobs.empty(); });
        if (stop.stop_requested()) {
          return;
        }
        job = std::move(m_jobs.front());
        m_jobs.pop_front();
      }
      job();
    }
  }

  std::mutex m_mutex;
  std::condition_variable_any m_posted;
  std::deque<Job> m_jobs;
  std::jthread m_thread; // last: started once the rest is ready, stopped and joined first
};

} // namespace ralph::engine
