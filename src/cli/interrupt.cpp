#include "cli/interrupt.h"

#include <atomic>
#include <csignal>
#include <unistd.h>

namespace ralph::cli {
namespace {

// A signal handler can reach nothing but globals: this is the only one in ralph, set and cleared
// by the single InterruptHandler alive.
std::atomic<bool>* g_flag = nullptr;

extern "C" void on_signal(int signal) {
  std::atomic<bool>* flag = g_flag;
  if (flag == nullptr) {
    return;
  }
  if (signal == SIGINT && flag->load(std::memory_order_relaxed)) {
    constexpr char k_message[] = "\nralph: interrupted again, stopping now\n";
    (void)!write(STDERR_FILENO, k_message, sizeof(k_message) - 1);
    _exit(130);
  }
  flag->store(true, std::memory_order_relaxed);
}

} // namespace

InterruptHandler::InterruptHandler(const CancelToken& token) : m_token(token) {
  g_flag = m_token.flag();
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &m_previous_int);
  sigaction(SIGTERM, &action, &m_previous_term);
}

InterruptHandler::~InterruptHandler() {
  sigaction(SIGINT, &m_previous_int, nullptr);
  sigaction(SIGTERM, &m_previous_term, nullptr);
  g_flag = nullptr;
}

} // namespace ralph::cli
