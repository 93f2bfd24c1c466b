#pragma once

#include "workspace_fingerprint.h"

#include "ralph/agent/attempt_observer.h"
#include "ralph/core/cancel.h"
#include "ralph/core/clock.h"
#include "ralph/core/event.h"
#include "ralph/loop/budget.h"
#include "ralph/loop/journal.h"
#include "ralph/verify/attempt.h"
#include "ralph/verify/completion_marker.h"

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace ralph::loop {

// Stands between the agent and the run during an attempt. It takes the agent's facts: each model
// call's usage counts against the budgets (a spent token or cost budget cancels the attempt at
// once), each call is recorded in the journal before the agent goes on, and the attempt's tool
// calls are kept as records, marked when they changed the workspace. Each fact is then shown on
// the event stream, where the agent's own events and the loop's pass too, stamped with the
// iteration; the completion marker is taken out of the model's streamed text there, as it is out
// of the answer, so no one sees it. Nothing here reads an event.
class AttemptTracker final : public agent::AttemptObserver, public EventSink {
public:
  // `workspace` empty: tool calls are not checked for workspace changes. `journal` may be null.
  // `marker`: the completion marker (empty: none).
  AttemptTracker(EventSink& downstream, BudgetTracker& budget, Clock& clock,
                 std::filesystem::path workspace, Journal* journal, std::string marker);

  // Starts attempt `iteration`, which stops early by cancelling `attempt_token`.
  void begin(int iteration, CancelToken attempt_token);

  void model_call_finished(const agent::ModelCall& call) override;
  void tool_call_finished(int step, const ToolCall& call, const tools::ToolResult& result) override;
  std::optional<double> cost_left_usd() const override { return m_budget.cost_left(); }
  void on_event(const Event& event) override;

  // Shows one of the loop's own events.
  void show(EventPayload payload) { on_event(Event{.payload = std::move(payload)}); }
  // Shows budget_warning events for budgets that are nearly spent, each once.
  void warn_budgets();
  // Counts a verifier's model calls, as the agent's are counted.
  void count_verifier_usage(const std::string& model, const Usage& usage);

  std::vector<verify::ToolRecord> take_tool_records();
  // True when this attempt was cancelled because the journal could not record a step.
  bool stopped_by_journal() const { return m_stopped_by_journal; }

private:
  // Whether a tool call changed the workspace: never for read-only tools, always for tools that
  // wrote files, else as a full walk of the workspace shows (no cap, at any size).
  bool changed_workspace(const tools::ToolResult& result);
  // A step the journal could not record must not be followed by more unrecorded ones.
  void stop_if_unrecorded();
  // Says once per run that token counts are estimates, when the first one is.
  void warn_if_estimated(const Usage& usage);

  EventSink& m_downstream;
  BudgetTracker& m_budget;
  Clock& m_clock;
  std::filesystem::path m_workspace;
  Journal* m_journal;
  int m_iteration = 0;
  CancelToken m_attempt_token;
  bool m_stopped_by_journal = false;
  bool m_warned_estimate = false;
  Fingerprint m_fingerprint;
  std::vector<verify::ToolRecord> m_records;
  std::mutex m_text_mutex; // the filter: verifiers show events from threads of their own
  verify::MarkerFilter m_text;
};

} // namespace ralph::loop
