#pragma once

#include "ralph/core/message.h"
#include "ralph/llm/provider.h"
#include "ralph/tools/tool.h"

#include <optional>
#include <string>

namespace ralph::agent {

// One model call of an attempt, as it returned.
struct ModelCall {
  int step = 0;      // the attempt's model call it belongs to, 1-based
  std::string model; // "provider/model" the tokens were spent on: what prices are keyed by
  Usage usage;
  std::optional<llm::StopReason> stop_reason; // none for sub-queries, reported in batches
  int requests = 1;                           // model requests this report covers
  // What the calls cost by the agent's own account (an external CLI's report); none: priced
  // from the configuration's [prices].
  std::optional<double> cost_usd;
};

// What whoever runs an attempt must know of it while it runs: each model call and each tool call
// as it returns, so that budgets are counted (and an attempt that spent one stopped), every step
// is recorded before the agent goes on, and the tool calls that changed the workspace are known.
// An agent calls it from the thread that runs it, right after each call returns; what it does
// with the facts never changes what the agent does next, except that it may cancel the attempt.
// This is the only channel those facts travel on: the event stream an agent also gets is for
// showing the run, and a library user's agent that ignores it still reports all that matters.
class AttemptObserver {
public:
  virtual ~AttemptObserver() = default;
  virtual void model_call_finished(const ModelCall& call) = 0;
  // `result` is what the model is given back for `call`, made in model call `step`.
  virtual void tool_call_finished(int step, const ToolCall& call,
                                  const tools::ToolResult& result) = 0;
  // What is left of the run's cost budget, for agents that can be told (an external CLI's own
  // budget flag); none without a cost budget.
  virtual std::optional<double> cost_left_usd() const { return std::nullopt; }
};

// Ignores every fact: for running an agent outside the outer loop.
class NullAttemptObserver final : public AttemptObserver {
public:
  void model_call_finished(const ModelCall&) override {}
  void tool_call_finished(int, const ToolCall&, const tools::ToolResult&) override {}
};

} // namespace ralph::agent
