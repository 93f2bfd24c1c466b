#include "fiber.h"

#include <bit>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define RALPH_ASAN 1
#endif

namespace ralph::engine {
namespace {

// The annotations AddressSanitizer needs around a stack switch; nothing without it.
void start_switch(void** fake_stack, const void* bottom, std::size_t size) {
#if defined(RALPH_ASAN)
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
#else
  (void)fake_stack, (void)bottom, (void)size;
#endif
}

void finish_switch(void* fake_stack, const void** bottom_old, std::size_t* size_old) {
#if defined(RALPH_ASAN)
  __sanitizer_finish_switch_fiber(fake_stack, bottom_old, size_old);
#else
  (void)fake_stack, (void)bottom_old, (void)size_old;
#endif
}

// AddressSanitizer's red zones make every frame several times larger.
#if defined(RALPH_ASAN)
constexpr std::size_t k_stack_factor = 4;
#else
constexpr std::size_t k_stack_factor = 1;
#endif

} // namespace

Fiber::Fiber(std::size_t stack_bytes, std::function<void()> body) : m_body(std::move(body)) {
  stack_bytes *= k_stack_factor;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  m_stack_bytes = (stack_bytes + page - 1) / page * page;
  m_mapping_bytes = m_stack_bytes + page;
  m_mapping = ::mmap(nullptr, m_mapping_bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (m_mapping == MAP_FAILED) {
    throw std::runtime_error("no memory for a fiber's stack");
  }
  ::mprotect(m_mapping, page, PROT_NONE); // the guard page below the stack
  m_stack = static_cast<char*>(m_mapping) + page;
  ::getcontext(&m_context);
  m_context.uc_stack.ss_sp = m_stack;
  m_context.uc_stack.ss_size = m_stack_bytes;
  m_context.uc_link = nullptr;
  // makecontext passes int arguments only: the pointer goes in two halves.
  const auto self = std::bit_cast<std::uintptr_t>(this);
  makecontext(&m_context, reinterpret_cast<void (*)()>(&Fiber::entry), 2,
              static_cast<unsigned>(self >> 32), static_cast<unsigned>(self & 0xffffffffU));
}

Fiber::~Fiber() {
  ::munmap(m_mapping, m_mapping_bytes);
}

void Fiber::entry(unsigned high, unsigned low) {
  auto* fiber = std::bit_cast<Fiber*>((static_cast<std::uintptr_t>(high) << 32) | low);
  fiber->run();
}

void Fiber::run() {
  finish_switch(nullptr, &m_caller_bottom, &m_caller_size);
  try {
    m_body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ralph: internal error: a task ended with an exception: %s\n", e.what());
    std::terminate();
  }
  m_body = nullptr; // what the body captured goes now, on its own stack
  m_finished = true;
  // Leaving for good: a null fake stack tells ASan this stack's frames are gone.
  start_switch(nullptr, m_caller_bottom, m_caller_size);
  ::setcontext(&m_caller);
}

void Fiber::resume() {
  void* fake_stack = nullptr;
  start_switch(&fake_stack, m_stack, m_stack_bytes);
  ::swapcontext(&m_caller, &m_context);
  finish_switch(fake_stack, nullptr, nullptr);
}

void Fiber::suspend() {
  start_switch(&m_fake_stack, m_caller_bottom, m_caller_size);
  ::swapcontext(&m_context, &m_caller);
  finish_switch(m_fake_stack, &m_caller_bottom, &m_caller_size);
}

} // namespace ralph::engine
