#include "ralph/engine/engine.h"

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace ralph::engine {

// Stand-in until the fiber scheduler lands: one thread per task, each with blocking I/O.
struct Engine::State {
  EngineOptions options;
  std::mutex mutex;
  std::condition_variable idle;
  std::size_t running = 0;
  std::vector<std::thread> threads;
};

Engine::Engine(EngineOptions options) : m_state(std::make_unique<State>()) {
  m_state->options = options;
}

Engine::~Engine() {
  wait();
  std::lock_guard lock(m_state->mutex);
  for (auto& thread : m_state->threads) {
    thread.join();
  }
}

void Engine::spawn(Task task) {
  std::lock_guard lock(m_state->mutex);
  ++m_state->running;
  m_state->threads.emplace_back([this, task = std::move(task)] {
    BlockingIo io;
    task(io);
    std::lock_guard done(m_state->mutex);
    if (--m_state->running == 0) {
      m_state->idle.notify_all();
    }
  });
}

void Engine::wait() {
  std::unique_lock lock(m_state->mutex);
  m_state->idle.wait(lock, [this] { return m_state->running == 0; });
}

unsigned Engine::threads() const {
  return m_state->options.threads == 0 ? std::max(1U, std::thread::hardware_concurrency())
                                       : m_state->options.threads;
}

} // namespace ralph::engine
