#include "cli/interrupt.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

namespace ralph::cli {

struct SignalTarget {
  std::atomic<bool>* cancel = nullptr; // InterruptHandler: the flag a signal sets
  int pipe = -1;                       // InterruptPipe: the writing end a signal's number goes to
  std::atomic<int> untaken{0};         // InterruptPipe: SIGINTs written and not yet taken
  SignalTarget* previous = nullptr;
  struct sigaction previous_int {};
  struct sigaction previous_term {};
};

namespace {

// A signal handler can reach nothing but globals: this is the only one in ralph, set by the
// handler object alive (InterruptHandler or InterruptPipe) and given back to the one before it.
std::atomic<SignalTarget*> g_target{nullptr};

[[noreturn]] void stop_now() {
  constexpr char k_message[] = "\nralph: interrupted again, stopping now\n";
  (void)!write(STDERR_FILENO, k_message, sizeof(k_message) - 1);
  _exit(130);
}

extern "C" void on_signal(int signal) {
  SignalTarget* target = g_target.load();
  if (target == nullptr) {
    return;
  }
  if (target->cancel != nullptr) {
    if (signal == SIGINT && target->cancel->load(std::memory_order_relaxed)) {
      stop_now();
    }
    target->cancel->store(true, std::memory_order_relaxed);
    return;
  }
  if (signal == SIGINT && target->untaken.fetch_add(1) + 1 >= 3) {
    stop_now();
  }
  const int saved_errno = errno; // the interrupted code may be about to read errno
  const char byte = static_cast<char>(signal);
  (void)!write(target->pipe, &byte, 1); // a full pipe already holds enough wake-ups
  errno = saved_errno;
}

void install(SignalTarget& target) {
  target.previous = g_target.load();
  g_target.store(&target);
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &target.previous_int);
  sigaction(SIGTERM, &action, &target.previous_term);
}

void uninstall(const SignalTarget& target) {
  sigaction(SIGINT, &target.previous_int, nullptr);
  sigaction(SIGTERM, &target.previous_term, nullptr);
  g_target.store(target.previous);
}

} // namespace

InterruptHandler::InterruptHandler(const CancelToken& token)
    : m_token(token), m_target(std::make_unique<SignalTarget>()) {
  m_target->cancel = m_token.flag();
  install(*m_target);
}

InterruptHandler::~InterruptHandler() {
  uninstall(*m_target);
}

InterruptPipe::InterruptPipe() : m_target(std::make_unique<SignalTarget>()) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw std::system_error(errno, std::generic_category(), "cannot make a pipe for signals");
  }
  m_read = fds[0];
  m_target->pipe = fds[1];
  install(*m_target);
}

InterruptPipe::~InterruptPipe() {
  uninstall(*m_target);
  ::close(m_read);
  ::close(m_target->pipe);
}

int InterruptPipe::fd() const {
  return m_read;
}

std::optional<int> InterruptPipe::take() {
  char byte = 0;
  if (::read(m_read, &byte, 1) != 1) {
    return std::nullopt;
  }
  const int signal = static_cast<unsigned char>(byte);
  if (signal == SIGINT) {
    m_target->untaken.fetch_sub(1);
  }
  return signal;
}

} // namespace ralph::cli
