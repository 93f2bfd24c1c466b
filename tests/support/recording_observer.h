#pragma once

#include "ralph/agent/attempt_observer.h"

#include <optional>
#include <vector>

namespace ralph::testing {

// Keeps the facts an agent reports, for tests of agents run outside the loop.
class RecordingObserver final : public agent::AttemptObserver {
public:
  struct ToolCallSeen {
    int step = 0;
    ToolCall call;
    tools::ToolResult result;
  };

  void model_call_finished(const agent::ModelCall& call) override { model_calls.push_back(call); }
  void tool_call_finished(int step, const ToolCall& call,
                          const tools::ToolResult& result) override {
    tool_calls.push_back({step, call, result});
  }
  std::optional<double> cost_left_usd() const override { return cost_left; }

  std::vector<agent::ModelCall> model_calls;
  std::vector<ToolCallSeen> tool_calls;
  std::optional<double> cost_left; // what cost_left_usd() answers
};

} // namespace ralph::testing
