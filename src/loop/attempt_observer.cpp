#include "attempt_observer.h"

#include <chrono>
#include <utility>

namespace ralph::loop {
namespace {

// Tools that write files: a successful call is a change even when `stat` cannot tell (same
// size within the file system's timestamp granularity).
bool writes_files(const std::string& tool) {
  return tool == "write_file" || tool == "edit_file";
}

} // namespace

AttemptObserver::AttemptObserver(EventSink& downstream, BudgetTracker& budget,
                                 std::string agent_model, std::filesystem::path workspace,
                                 Journal* journal)
    : m_downstream(downstream), m_budget(budget), m_agent_model(std::move(agent_model)),
      m_workspace(std::move(workspace)), m_journal(journal) {}

void AttemptObserver::begin(int iteration, CancelToken attempt_token) {
  m_iteration = iteration;
  m_attempt_token = std::move(attempt_token);
  m_stopped_by_budget = false;
  m_stopped_by_journal = false;
  m_arguments.clear();
  m_records.clear();
  if (!m_workspace.empty()) {
    m_fingerprint = fingerprint_workspace(m_workspace);
  }
}

void AttemptObserver::warn_budgets() {
  for (const auto& [kind, percent] : m_budget.new_warnings(std::chrono::steady_clock::now())) {
    Event warning;
    warning.type = EventType::budget_warning;
    warning.detail = to_string(kind);
    warning.number = percent;
    on_event(warning);
  }
}

void AttemptObserver::on_event(const Event& event) {
  Event stamped = event;
  stamped.iteration = m_iteration;
  m_downstream.on_event(stamped);

  switch (event.type) {
  case EventType::model_finished: {
    const auto now = std::chrono::steady_clock::now();
    m_budget.add(m_agent_model, event.usage);
    if (m_journal != nullptr) {
      m_journal->model_call(m_iteration, stamped, m_budget.counters(now));
    }
    warn_budgets();
    if (m_budget.exhausted(now)) {
      m_stopped_by_budget = true;
      m_attempt_token.cancel();
    }
    stop_if_unrecorded();
    return;
  }
  case EventType::tool_started:
    m_arguments[event.tool_call_id] = event.text;
    return;
  case EventType::tool_finished: {
    verify::ToolRecord record;
    record.id = event.tool_call_id;
    record.name = event.name;
    if (const auto found = m_arguments.find(event.tool_call_id); found != m_arguments.end()) {
      record.arguments = found->second;
    }
    record.exit_code = event.exit_code;
    record.is_error = event.is_error;
    record.duration_ms = event.duration_ms;
    if (!m_workspace.empty()) {
      const Fingerprint now = fingerprint_workspace(m_workspace);
      // An incomplete walk cannot prove nothing changed: assume it did.
      record.changed_workspace = !now.complete || now.hash != m_fingerprint.hash ||
                                 (writes_files(record.name) && !record.is_error);
      m_fingerprint = now;
    }
    if (m_journal != nullptr) {
      m_journal->tool_call(m_iteration, static_cast<int>(m_records.size()) + 1, record, event.text);
    }
    m_records.push_back(std::move(record));
    stop_if_unrecorded();
    return;
  }
  default:
    return;
  }
}

void AttemptObserver::stop_if_unrecorded() {
  if (m_journal != nullptr && m_journal->failure() && !m_stopped_by_journal) {
    m_stopped_by_journal = true;
    m_attempt_token.cancel();
  }
}

std::vector<verify::ToolRecord> AttemptObserver::take_tool_records() {
  return std::exchange(m_records, {});
}

} // namespace ralph::loop
