#pragma once

#include "ralph/core/cancel.h"

#include <memory>
#include <optional>

namespace ralph::cli {

struct SignalTarget; // what the signal handler reaches while a handler object is alive

// While alive, the first SIGINT or SIGTERM cancels `token` (the run stops cleanly and reports
// `interrupted`); a second SIGINT ends the process at once with exit code 130. The previous
// handlers come back on destruction. Handler objects (this one and InterruptPipe) nest: the
// latest alive gets the signals; destroy them in reverse order.
class InterruptHandler {
public:
  explicit InterruptHandler(const CancelToken& token);
  ~InterruptHandler();
  InterruptHandler(const InterruptHandler&) = delete;
  InterruptHandler& operator=(const InterruptHandler&) = delete;

private:
  CancelToken m_token; // keeps the flag the handler writes alive
  std::unique_ptr<SignalTarget> m_target;
};

// While alive, each SIGINT and SIGTERM writes one byte to a non-blocking pipe, so a poll loop
// wakes on it (fd() readable) and learns which signal came (take()). Three SIGINTs not taken end
// the process with exit code 130: a program stuck away from its poll loop stays killable. The
// previous handlers come back on destruction; nests with InterruptHandler as said there.
// take() belongs to one thread; the signals may arrive on any.
class InterruptPipe {
public:
  InterruptPipe(); // throws std::system_error when no pipe can be made
  ~InterruptPipe();
  InterruptPipe(const InterruptPipe&) = delete;
  InterruptPipe& operator=(const InterruptPipe&) = delete;

  // Readable while a signal waits to be taken.
  int fd() const;
  // The next signal that arrived (SIGINT or SIGTERM), or nothing when none waits.
  std::optional<int> take();

private:
  int m_read = -1;
  std::unique_ptr<SignalTarget> m_target; // owns the writing end
};

} // namespace ralph::cli
