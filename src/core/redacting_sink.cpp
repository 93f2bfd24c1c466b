#include "ralph/core/redacting_sink.h"

namespace ralph {
namespace {

// Redacts the text fields of each payload kind; payloads without text pass as they are.
struct RedactFields {
  const Redactor& redactor;

  void call(ToolCall& call) const {
    call.name = redactor.redact(call.name);
    call.arguments = redactor.redact_json(call.arguments);
  }
  void operator()(event::ToolStarted& e) const { call(e.call); }
  void operator()(event::ToolProgress& e) const { e.message = redactor.redact(e.message); }
  void operator()(event::ToolFinished& e) const {
    call(e.call);
    e.result = redactor.redact(e.result);
  }
  void operator()(event::Retry& e) const { e.reason = redactor.redact(e.reason); }
  void operator()(event::Warning& e) const { e.text = redactor.redact(e.text); }
  void operator()(event::AgentLimitWait& e) const { e.message = redactor.redact(e.message); }
  void operator()(event::Failure& e) const { e.message = redactor.redact(e.message); }
  void operator()(event::AgentFinished& e) const { e.answer = redactor.redact(e.answer); }
  void operator()(event::AttemptFinished& e) const { e.answer = redactor.redact(e.answer); }
  void operator()(event::VerificationSkipped& e) const { e.reason = redactor.redact(e.reason); }
  void operator()(event::VerifierStarted& e) const { e.verifier = redactor.redact(e.verifier); }
  void operator()(event::VerdictGiven& e) const {
    e.verifier = redactor.redact(e.verifier);
    e.feedback = redactor.redact(e.feedback);
  }
  void operator()(event::FeedbackGiven& e) const { e.text = redactor.redact(e.text); }
  void operator()(event::RunEnded& e) const { e.reason = redactor.redact(e.reason); }
  void operator()(event::AttemptsRanked& e) const { e.why = redactor.redact(e.why); }
  template <typename Other> void operator()(Other&) const {}
};

} // namespace

template <typename Delta>
void RedactingSink::feed(Stream& stream, const Event& event, const Delta& delta) {
  stream.iteration = event.iteration;
  stream.step = event.step;
  std::string shown = stream.redactor.feed(delta.text);
  if (!shown.empty()) {
    m_next.on_event(Event{.iteration = event.iteration,
                          .step = event.step,
                          .payload = Delta{.text = std::move(shown)}});
  }
}

template <typename Delta> void RedactingSink::finish(Stream& stream) {
  if (stream.redactor.holding()) {
    m_next.on_event(Event{.iteration = stream.iteration,
                          .step = stream.step,
                          .payload = Delta{.text = stream.redactor.finish()}});
  }
}

void RedactingSink::on_event(const Event& event) {
  const std::lock_guard lock(m_mutex);
  if (const auto* delta = event.get<event::TextDelta>()) {
    feed(m_text, event, *delta);
    return;
  }
  if (const auto* delta = event.get<event::ThinkingDelta>()) {
    feed(m_thinking, event, *delta);
    return;
  }
  flush_locked();
  Event redacted = event;
  std::visit(RedactFields{m_redactor}, redacted.payload);
  m_next.on_event(redacted);
}

void RedactingSink::flush() {
  const std::lock_guard lock(m_mutex);
  flush_locked();
}

void RedactingSink::flush_locked() {
  finish<event::ThinkingDelta>(m_thinking);
  finish<event::TextDelta>(m_text);
}

} // namespace ralph
