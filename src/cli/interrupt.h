#pragma once

#include "ralph/core/cancel.h"

#include <csignal>

namespace ralph::cli {

// While alive, the first SIGINT or SIGTERM cancels `token` (the run stops cleanly and reports
// `interrupted`); a second SIGINT ends the process at once with exit code 130. The previous
// handlers come back on destruction. One instance at a time.
class InterruptHandler {
public:
  explicit InterruptHandler(const CancelToken& token);
  ~InterruptHandler();
  InterruptHandler(const InterruptHandler&) = delete;
  InterruptHandler& operator=(const InterruptHandler&) = delete;

private:
  CancelToken m_token; // keeps the flag the handler writes alive
  struct sigaction m_previous_int {};
  struct sigaction m_previous_term {};
};

} // namespace ralph::cli
