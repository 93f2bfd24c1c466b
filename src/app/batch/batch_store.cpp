#include "app/batch/batch_store.h"

#include "ralph/core/saturating.h"

namespace ralph::app {

BatchStore::BatchStore(store::SessionStore& inner, BudgetSettings limits, CancelToken stop)
    : m_inner(inner), m_limits(limits), m_stop(std::move(stop)) {}

void BatchStore::count(const store::SessionRow& session) {
  std::lock_guard lock(m_mutex);
  note(session);
}

BatchSpend BatchStore::spend() const {
  std::lock_guard lock(m_mutex);
  return m_total;
}

std::optional<BudgetKind> BatchStore::spent() const {
  std::lock_guard lock(m_mutex);
  return m_spent;
}

void BatchStore::note(const store::SessionRow& session) {
  const BatchSpend now{.tokens = saturating_add(session.input_tokens, session.output_tokens),
                       .cost_usd = session.cost_usd,
                       .cost_known = session.cost_known};
  BatchSpend& before = m_sessions[session.id];
  m_total.tokens = saturating_add(m_total.tokens, now.tokens - before.tokens);
  m_total.cost_usd += now.cost_usd - before.cost_usd;
  m_unpriced += static_cast<int>(!now.cost_known) - static_cast<int>(!before.cost_known);
  before = now;
  m_total.cost_known = m_unpriced == 0;
  if (m_spent) {
    return;
  }
  if (m_limits.max_tokens > 0 && m_total.tokens >= m_limits.max_tokens) {
    m_spent = BudgetKind::tokens;
  } else if (m_limits.max_cost_usd > 0 && m_total.cost_usd >= m_limits.max_cost_usd) {
    m_spent = BudgetKind::cost;
  }
  if (m_spent) {
    m_stop.cancel();
  }
}

Result<void> BatchStore::create_session(const store::SessionRow& session) {
  std::lock_guard lock(m_mutex);
  note(session);
  return m_inner.create_session(session);
}

Result<void> BatchStore::update_session(const store::SessionRow& session) {
  std::lock_guard lock(m_mutex);
  note(session);
  return m_inner.update_session(session);
}

Result<std::optional<store::SessionRow>> BatchStore::find_session(const std::string& id) {
  std::lock_guard lock(m_mutex);
  return m_inner.find_session(id);
}

Result<std::vector<store::SessionRow>> BatchStore::list_sessions() {
  std::lock_guard lock(m_mutex);
  return m_inner.list_sessions();
}

Result<std::optional<store::SessionRecord>> BatchStore::load(const std::string& id) {
  std::lock_guard lock(m_mutex);
  return m_inner.load(id);
}

Result<bool> BatchStore::remove_session(const std::string& id) {
  std::lock_guard lock(m_mutex);
  return m_inner.remove_session(id);
}

Result<std::vector<std::string>> BatchStore::prune(const std::string& cutoff) {
  std::lock_guard lock(m_mutex);
  return m_inner.prune(cutoff);
}

Result<void> BatchStore::save_attempt(const store::AttemptRow& attempt) {
  std::lock_guard lock(m_mutex);
  return m_inner.save_attempt(attempt);
}

Result<void> BatchStore::finish_attempt(const store::AttemptRow& attempt,
                                        const std::vector<store::VerdictRow>& verdicts,
                                        const store::SessionRow& session) {
  std::lock_guard lock(m_mutex);
  note(session);
  return m_inner.finish_attempt(attempt, verdicts, session);
}

Result<void> BatchStore::add_model_call(const store::ModelCallRow& call,
                                        const store::SessionRow& session) {
  std::lock_guard lock(m_mutex);
  note(session);
  return m_inner.add_model_call(call, session);
}

Result<void> BatchStore::add_tool_call(const store::ToolCallRow& call) {
  std::lock_guard lock(m_mutex);
  return m_inner.add_tool_call(call);
}

} // namespace ralph::app
