#pragma once

#include "ralph/agent/agent.h"
#include "ralph/core/event.h"
#include "ralph/llm/provider.h"
#include "ralph/tools/registry.h"

#include <optional>
#include <string>
#include <vector>

namespace ralph::agent {

struct AgentOptions {
  std::string model;         // as the provider expects it, without the "provider/" prefix
  std::string system_prompt; // empty: default_system_prompt()
  int max_steps = 40;        // model calls per attempt
  int max_tokens = 4096;
  std::optional<double> temperature;
  bool stream = true;
};

// The built-in system prompt: how to work in the workspace with the tools and when to stop.
std::string default_system_prompt();

// The ReAct loop: call the model, run the tools it asks for, give it the results, until it
// answers without tool calls or the step budget runs out. Tool failures go back to the model as
// error results; they never end the attempt. `provider` and `tools` must outlive the agent.
// Not thread-safe.
class ReactAgent final : public Agent {
public:
  ReactAgent(llm::Provider& provider, const tools::Registry& tools, tools::ToolContext tool_context,
             AgentOptions options);

  AgentOutcome run(std::vector<Message>& conversation, const CancelToken& cancel,
                   EventSink& events) override;

private:
  // Runs the calls of the assistant message just appended; returns false when cancelled.
  bool run_tools(std::vector<Message>& conversation, AgentOutcome& outcome,
                 const CancelToken& cancel, EventSink& events);

  llm::Provider& m_provider;
  const tools::Registry& m_tools;
  tools::ToolContext m_tool_context;
  AgentOptions m_options;
  std::vector<ToolSpec> m_specs;
};

} // namespace ralph::agent
