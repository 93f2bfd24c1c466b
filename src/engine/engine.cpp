#include "ralph/engine/engine.h"

#include "scheduler.h"

#include "ralph/http/curl_transport.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace ralph::engine {

struct Engine::State {
  std::optional<http::CurlGlobal> curl; // before any engine thread starts
  std::mutex mutex;
  std::condition_variable idle;
  std::size_t outstanding = 0;
  std::size_t next = 0; // round robin over the schedulers
  std::vector<std::unique_ptr<Scheduler>> schedulers;
  std::vector<std::thread> threads;

  void task_done() {
    std::lock_guard lock(mutex);
    if (--outstanding == 0) {
      idle.notify_all();
    }
  }
};

Engine::Engine(EngineOptions options) : m_state(std::make_unique<State>()) {
  State& state = *m_state;
  state.curl.emplace();
  const unsigned count =
      options.threads != 0 ? options.threads : std::max(1U, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < count; ++i) {
    state.schedulers.push_back(
        std::make_unique<Scheduler>(options.stack_bytes, [&state] { state.task_done(); }));
  }
  for (auto& scheduler : state.schedulers) {
    state.threads.emplace_back([&scheduler = *scheduler] { scheduler.run(); });
  }
}

Engine::~Engine() {
  wait();
  for (auto& scheduler : m_state->schedulers) {
    scheduler->stop();
  }
  for (auto& thread : m_state->threads) {
    thread.join();
  }
}

void Engine::spawn(Task task) {
  Scheduler* target = nullptr;
  {
    std::lock_guard lock(m_state->mutex);
    ++m_state->outstanding;
    target = m_state->schedulers[m_state->next++ % m_state->schedulers.size()].get();
  }
  target->post(std::move(task));
}

void Engine::wait() {
  std::unique_lock lock(m_state->mutex);
  m_state->idle.wait(lock, [this] { return m_state->outstanding == 0; });
}

unsigned Engine::threads() const {
  return static_cast<unsigned>(m_state->schedulers.size());
}

} // namespace ralph::engine
