#pragma once

#include "ralph/core/event.h"
#include "ralph/core/redactor.h"

#include <mutex>

namespace ralph {

// An EventSink in front of another that passes every event on with its text redacted: the one
// place where what a run shows (terminal, --events file, server) loses its secrets, as values,
// before any sink encodes them. Streamed text and thinking go through a StreamRedactor each, so
// a secret split across deltas is masked too: the held-back tail follows with the next delta,
// or before the next event of another kind. Thread-safe; `redactor` and `next` must outlive it.
class RedactingSink final : public EventSink {
public:
  RedactingSink(EventSink& next, const Redactor& redactor)
      : m_next(next), m_redactor(redactor), m_text(redactor), m_thinking(redactor) {}

  void on_event(const Event& event) override;
  // Passes on what the streams still hold (call when the run ends).
  void flush();

private:
  void flush_locked();

  EventSink& m_next;
  const Redactor& m_redactor;
  std::mutex m_mutex;
  StreamRedactor m_text;
  StreamRedactor m_thinking;
  Event m_last_text;     // where the held text came from (iteration, step)
  Event m_last_thinking; // the same for thinking
};

} // namespace ralph
