// An ordinary turn of a chat: said, answered once, unverified, recorded as the chat's attempt.
#include "app/chat/chat_progress.h"

#include "ralph/app/chat/chat.h"
#include "ralph/core/redacting_sink.h"
#include "ralph/core/text.h"
#include "ralph/loop/session_resume.h"
#include "ralph/loop/store_journal.h"

namespace ralph::app {
namespace {

loop::BudgetCounters plus(loop::BudgetCounters a, const loop::BudgetCounters& b) {
  a.usage += b.usage;
  a.cost_usd += b.cost_usd;
  a.cost_known = a.cost_known && b.cost_known;
  a.elapsed_ms += b.elapsed_ms;
  return a;
}

// Records the ordinary turns of a chat as attempts of the chat's session, numbered on from the
// attempts before, with the counters of the whole chat. The chat's row and its resume point are
// the chat's to write (Chat::save), so the end of a turn's run is not passed on.
class TurnJournal final : public loop::Journal {
public:
  TurnJournal(loop::StoreJournal& inner, int offset, loop::BudgetCounters base)
      : m_inner(inner), m_offset(offset), m_base(base) {}

  // A turn starts from the chat's whole conversation, which the chat's state records: the turn
  // records only what was said to start it, so a long chat's record grows with its length, not
  // with the square of it.
  void attempt_started(int iteration, std::span<const Message> conversation) override {
    m_inner.attempt_started(iteration + m_offset,
                            conversation.empty() ? conversation : conversation.last(1));
  }
  void model_call(int iteration, const agent::ModelCall& call,
                  const loop::BudgetCounters& counters) override {
    m_inner.model_call(iteration + m_offset, call, plus(m_base, counters));
  }
  void tool_call(int iteration, int seq, const verify::ToolRecord& record,
                 std::string_view result) override {
    m_inner.tool_call(iteration + m_offset, seq, record, result);
  }
  void attempt_finished(const loop::AttemptRecord& attempt, std::span<const Message> added,
                        const loop::BudgetCounters& counters, int /*best_iteration*/,
                        const std::optional<loop::ResumePoint>& /*next*/) override {
    loop::AttemptRecord shifted = attempt;
    shifted.iteration += m_offset;
    m_inner.attempt_finished(shifted, added, plus(m_base, counters), 0, std::nullopt);
  }
  void resumed(const loop::ResumePoint& /*next*/) override {}
  void finished(const loop::LoopResult& /*result*/) override {}
  std::optional<Error> failure() const override { return m_inner.failure(); }

private:
  loop::StoreJournal& m_inner;
  int m_offset;
  loop::BudgetCounters m_base;
};

// An ordinary turn is not verified by design: saying so after every answer is noise.
class TurnEvents final : public EventSink {
public:
  explicit TurnEvents(EventSink& next) : m_next(next) {}
  void on_event(const Event& event) override {
    if (event.get<event::VerificationSkipped>() == nullptr) {
      m_next.on_event(event);
    }
  }

private:
  EventSink& m_next;
};

} // namespace

Result<session::SessionReport> Chat::say(const std::string& text, const CancelToken& cancel) {
  const Working working(*this);
  // The turn works on its own copy: a /verify meanwhile may record the chat's state.
  std::vector<Message> conversation;
  {
    const std::scoped_lock lock(m_mutex);
    conversation = m_state.conversation;
  }
  conversation.push_back(Message{.role = Role::user, .content = text});
  if (m_row.goal == k_untitled) {
    m_row.goal = m_redactor.redact(first_line(text, 200));
  }
  loop::LoopOptions options{.goal = text,
                            .workspace = m_workspace,
                            .loop = m_config.loop,
                            .budget = m_config.budget,
                            .prices = m_config.prices};
  RedactingSink redacted(m_observer, m_redactor);
  TurnEvents events(redacted);
  // The turn's counters go on from the chat's time so far, so its steps record the chat's.
  stamp_elapsed();
  loop::StoreJournal recorded(*m_store, m_row, m_redactor, nullptr, events);
  TurnJournal journal(recorded, m_row.iterations, loop::spent_of(m_row));
  loop::OuterLoop outer(*m_agent, {}, std::move(options), m_io->clock(), &journal);
  const loop::LoopResult result = outer.run(conversation, cancel, events);
  redacted.flush();
  {
    const std::scoped_lock lock(m_mutex);
    m_state.conversation = std::move(conversation);
  }
  m_row = recorded.session();
  m_row.answer = m_redactor.redact(result.answer);
  m_row.reason = m_redactor.redact(result.reason);
  if (const auto failure = journal.failure()) {
    return fail(failure->kind,
                "the chat's record could not be written: " + m_redactor.redact(failure->message));
  }
  return session::make_report(m_row.id, result, m_redactor);
}

} // namespace ralph::app
