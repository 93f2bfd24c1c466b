#pragma once

#include <cstddef>
#include <functional>
#include <ucontext.h>

namespace ralph::engine {

// A function running on a stack of its own, switched to and from by the thread that owns it.
// The stack is mapped with a guard page below it, so an overflow faults instead of corrupting
// the heap; pages never touched cost address space, not memory. Switches are annotated for
// AddressSanitizer. A fiber never moves between threads.
class Fiber {
public:
  Fiber(std::size_t stack_bytes, std::function<void()> body);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // From the owning thread, outside any fiber: runs the fiber until it suspends or ends.
  void resume();
  // From inside the fiber: back to where resume() was called.
  void suspend();
  bool finished() const { return m_finished; }

private:
  static void entry(unsigned high, unsigned low);
  void run();

  std::function<void()> m_body;
  void* m_mapping = nullptr;
  std::size_t m_mapping_bytes = 0;
  void* m_stack = nullptr; // lowest usable byte
  std::size_t m_stack_bytes = 0;
  ucontext_t m_context{};
  ucontext_t m_caller{};
  bool m_finished = false;
  // AddressSanitizer's bookkeeping of the two stacks (unused without it).
  void* m_fake_stack = nullptr;
  const void* m_caller_bottom = nullptr;
  std::size_t m_caller_size = 0;
};

} // namespace ralph::engine
