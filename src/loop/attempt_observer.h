#pragma once

#include "workspace_fingerprint.h"

#include "ralph/core/cancel.h"
#include "ralph/core/event.h"
#include "ralph/loop/budget.h"
#include "ralph/loop/journal.h"
#include "ralph/verify/attempt.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ralph::loop {

// Sits between the agent and the run's event sink during an attempt: stamps every event with
// the iteration, records the attempt's tool calls (and, when asked, whether each one changed
// the workspace), and counts model usage against the budgets, cancelling the attempt as soon as
// a token or cost budget is spent. The loop also emits its own events through it.
class AttemptObserver final : public EventSink {
public:
  // `workspace` empty: tool calls are not checked for workspace changes. `journal` (may be null)
  // records each model and tool call before the agent goes on.
  AttemptObserver(EventSink& downstream, BudgetTracker& budget, std::string agent_model,
                  std::filesystem::path workspace, Journal* journal);

  // Starts recording attempt `iteration`, which stops early by cancelling `attempt_token`.
  void begin(int iteration, CancelToken attempt_token);
  void on_event(const Event& event) override;
  // Emits budget_warning events for budgets that reached 80% since the last call.
  void warn_budgets();

  std::vector<verify::ToolRecord> take_tool_records();
  // True when this attempt was cancelled because a budget ran out.
  bool stopped_by_budget() const { return m_stopped_by_budget; }
  // True when this attempt was cancelled because the journal could not record a step.
  bool stopped_by_journal() const { return m_stopped_by_journal; }

private:
  // A step the journal could not record must not be followed by more unrecorded ones.
  void stop_if_unrecorded();

  EventSink& m_downstream;
  BudgetTracker& m_budget;
  std::string m_agent_model;
  std::filesystem::path m_workspace;
  int m_iteration = 0;
  CancelToken m_attempt_token;
  Journal* m_journal;
  bool m_stopped_by_budget = false;
  bool m_stopped_by_journal = false;
  Fingerprint m_fingerprint;
  std::map<std::string, std::string, std::less<>> m_arguments; // by tool call id
  std::vector<verify::ToolRecord> m_records;
};

} // namespace ralph::loop
