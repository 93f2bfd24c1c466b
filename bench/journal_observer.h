#pragma once

#include "ralph/agent/attempt_observer.h"
#include "ralph/loop/journal.h"
#include "ralph/verify/attempt.h"

namespace ralph::bench {

// Records each step as the outer loop's AttemptTracker does, without budgets: the model call,
// then each tool call, each in the journal before the agent goes on (attempt 1).
class JournalObserver final : public agent::AttemptObserver {
public:
  explicit JournalObserver(loop::Journal& journal) : m_journal(journal) {}

  // A new attempt's tool calls count from 1 again.
  void begin() { m_seq = 0; }
  void model_call_finished(const agent::ModelCall& call) override {
    m_counters.usage.input_tokens += call.usage.input_tokens;
    m_counters.usage.output_tokens += call.usage.output_tokens;
    m_journal.model_call(1, call, m_counters);
  }
  void tool_call_finished(int, const ToolCall& call, const tools::ToolResult& result) override {
    const verify::ToolRecord record{.id = call.id,
                                    .name = call.name,
                                    .arguments = call.arguments,
                                    .exit_code = result.exit_code,
                                    .is_error = result.is_error,
                                    .duration_ms = result.duration.count()};
    m_journal.tool_call(1, ++m_seq, record, result.content);
  }
  const loop::BudgetCounters& counters() const { return m_counters; }

private:
  loop::Journal& m_journal;
  loop::BudgetCounters m_counters;
  int m_seq = 0;
};

} // namespace ralph::bench
