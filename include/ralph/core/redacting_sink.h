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
  // A streamed text (or thinking) and where its held-back tail came from.
  struct Stream {
    explicit Stream(const Redactor& secrets) : redactor(secrets) {}
    StreamRedactor redactor;
    int iteration = 0;
    int step = 0;
  };

  template <typename Delta> void feed(Stream& stream, const Event& event, const Delta& delta);
  template <typename Delta> void finish(Stream& stream);
  void flush_locked();

  EventSink& m_next;
  const Redactor& m_redactor;
  std::mutex m_mutex;
  Stream m_text;
  Stream m_thinking;
};

} // namespace ralph
