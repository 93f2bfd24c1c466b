#pragma once

#include "ralph/engine/io.h"

#include <cstddef>
#include <functional>
#include <memory>

namespace ralph::engine {

struct EngineOptions {
  unsigned threads = 0;                 // 0: one per core
  std::size_t stack_bytes = 256 * 1024; // each task's stack (touched pages only are resident)
};

// Hosts many sessions in one process. Each spawned task runs as a fiber on one of a few threads;
// when it waits on the network, a child process or a timer (through the Io it is given) the fiber
// parks and the thread runs others. All of a thread's HTTP transfers share one libcurl multi
// handle, so a thousand sessions waiting for their models cost a thousand sockets, not a thousand
// threads. A task must not block its thread any other way for long (a short mutex, a file write
// or a SQLite commit is fine); work it hands to a thread of its own blocks that thread instead.
class Engine {
public:
  using Task = std::function<void(Io& io)>;

  explicit Engine(EngineOptions options = {});
  ~Engine(); // waits for every task, then stops the threads
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Runs `task` on one of the engine's threads. Safe from any thread, tasks included. An
  // exception escaping a task ends the process (std::terminate): tasks report their own errors.
  void spawn(Task task);
  // Blocks until every task spawned so far (and those they spawn) has returned.
  void wait();
  unsigned threads() const;

private:
  struct State;
  std::unique_ptr<State> m_state;
};

} // namespace ralph::engine
