#include "attempt_tracker.h"

#include "ralph/agent/agent_steps.h"

#include <utility>

namespace ralph::loop {

AttemptTracker::AttemptTracker(EventSink& downstream, BudgetTracker& budget, Clock& clock,
                               std::filesystem::path workspace, Journal* journal,
                               std::string marker)
    : m_downstream(downstream), m_budget(budget), m_clock(clock), m_workspace(std::move(workspace)),
      m_journal(journal), m_text(std::move(marker)) {}

void AttemptTracker::begin(int iteration, CancelToken attempt_token) {
  m_iteration = iteration;
  m_attempt_token = std::move(attempt_token);
  m_stopped_by_journal = false;
  m_records.clear();
  if (!m_workspace.empty()) {
    m_fingerprint = fingerprint_workspace(m_workspace);
  }
}

void AttemptTracker::warn_budgets() {
  for (const BudgetUse& use : m_budget.new_warnings(m_clock.now())) {
    show(event::BudgetWarning{.budget = use.budget,
                              .percent = event::budget_percent(use.used, use.limit),
                              .used = use.used,
                              .limit = use.limit});
  }
}

void AttemptTracker::count_verifier_usage(const std::string& model, const Usage& usage) {
  m_budget.add(model, usage);
  warn_if_estimated(usage);
}

void AttemptTracker::warn_if_estimated(const Usage& usage) {
  if (usage.estimated && !m_warned_estimate) {
    m_warned_estimate = true;
    show(event::Warning{.text = "the model server reports no token usage: token counts are "
                                "estimated from the text (about 4 bytes per token) and the "
                                "budgets count the estimate"});
  }
}

void AttemptTracker::on_event(const Event& event) {
  Event stamped = event;
  stamped.iteration = m_iteration;
  std::string shown;
  auto* text = std::get_if<event::TextDelta>(&stamped.payload);
  {
    // A piece's end that may start the marker waits for the next piece; anything else that
    // happens means the text before it is whole.
    const std::lock_guard lock(m_text_mutex);
    shown = text != nullptr ? m_text.feed(text->text) : m_text.flush();
  }
  if (text != nullptr) {
    text->text = std::move(shown);
    if (!text->text.empty()) {
      m_downstream.on_event(stamped);
    }
    return;
  }
  if (!shown.empty()) {
    m_downstream.on_event(Event{.iteration = m_iteration,
                                .step = stamped.step,
                                .payload = event::TextDelta{.text = std::move(shown)}});
  }
  m_downstream.on_event(stamped);
}

void AttemptTracker::model_call_finished(const agent::ModelCall& call) {
  const auto now = m_clock.now();
  m_budget.add(call.model, call.usage, call.cost_usd);
  if (m_journal != nullptr) {
    m_journal->model_call(m_iteration, call, m_budget.counters(now));
  }
  on_event(agent::model_finished_event(call));
  warn_if_estimated(call.usage);
  warn_budgets();
  if (m_budget.exhausted(now)) {
    m_attempt_token.cancel();
  }
  stop_if_unrecorded();
}

void AttemptTracker::tool_call_finished(int step, const ToolCall& call,
                                        const tools::ToolResult& result) {
  verify::ToolRecord record{.id = call.id,
                            .name = call.name,
                            .arguments = call.arguments,
                            .exit_code = result.exit_code,
                            .is_error = result.is_error,
                            .duration_ms = result.duration.count()};
  if (!m_workspace.empty()) {
    record.changed_workspace = changed_workspace(result);
  }
  if (m_journal != nullptr) {
    m_journal->tool_call(m_iteration, static_cast<int>(m_records.size()) + 1, record,
                         result.content);
  }
  m_records.push_back(std::move(record));
  on_event(agent::tool_finished_event(step, call, result));
  stop_if_unrecorded();
}

bool AttemptTracker::changed_workspace(const tools::ToolResult& result) {
  if (result.read_only) {
    return false; // read_file, list_dir, search_files: no walk needed
  }
  const Fingerprint now = fingerprint_workspace(m_workspace);
  const bool changed = now != m_fingerprint;
  // The state after this call is what the next one is compared with: left to the next call, the
  // walk would give it this write's change, and a read-only `cat` after a write_file would be
  // recorded (and given to --verify-exec programs) as having changed the workspace.
  m_fingerprint = now;
  // A write is a change by design, even of a file to the bytes and times it had.
  return changed || (result.wrote_files && !result.is_error);
}

void AttemptTracker::stop_if_unrecorded() {
  if (m_journal != nullptr && m_journal->failure() && !m_stopped_by_journal) {
    m_stopped_by_journal = true;
    m_attempt_token.cancel();
  }
}

std::vector<verify::ToolRecord> AttemptTracker::take_tool_records() {
  return std::exchange(m_records, {});
}

} // namespace ralph::loop
