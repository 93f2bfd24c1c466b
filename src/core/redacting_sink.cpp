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
  void operator()(event::ToolFinished& e) const {
    call(e.call);
    e.result = redactor.redact(e.result);
  }
  void operator()(event::Retry& e) const { e.reason = redactor.redact(e.reason); }
  void operator()(event::Warning& e) const { e.text = redactor.redact(e.text); }
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
  template <typename Other> void operator()(Other&) const {}
};

} // namespace

void RedactingSink::on_event(const Event& event) {
  const std::lock_guard lock(m_mutex);
  if (const auto* delta = event.get<event::TextDelta>()) {
    m_last_text = event;
    std::string shown = m_text.feed(delta->text);
    if (!shown.empty()) {
      m_next.on_event(Event{.iteration = event.iteration,
                            .step = event.step,
                            .payload = event::TextDelta{.text = std::move(shown)}});
    }
    return;
  }
  if (const auto* delta = event.get<event::ThinkingDelta>()) {
    m_last_thinking = event;
    std::string shown = m_thinking.feed(delta->text);
    if (!shown.empty()) {
      m_next.on_event(Event{.iteration = event.iteration,
                            .step = event.step,
                            .payload = event::ThinkingDelta{.text = std::move(shown)}});
    }
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
  if (m_thinking.holding()) {
    m_next.on_event(Event{.iteration = m_last_thinking.iteration,
                          .step = m_last_thinking.step,
                          .payload = event::ThinkingDelta{.text = m_thinking.finish()}});
  }
  if (m_text.holding()) {
    m_next.on_event(Event{.iteration = m_last_text.iteration,
                          .step = m_last_text.step,
                          .payload = event::TextDelta{.text = m_text.finish()}});
  }
}

} // namespace ralph
