#pragma once

#include "ralph/agent/agent.h"
#include "ralph/core/event.h"
#include "ralph/core/settings.h"
#include "ralph/llm/provider.h"
#include "ralph/llm/provider_config.h"
#include "ralph/tools/registry.h"

#include <string>
#include <vector>

namespace ralph::agent {

// The built-in system prompt: how to work in the workspace with the tools and when to stop.
std::string default_system_prompt();

// The ReAct loop: call the model, run the tools it asks for, give it the results, until it
// answers without tool calls or the step budget runs out. Tool failures go back to the model as
// error results; they never end the attempt. `model` is what `provider` serves; an empty
// `settings.system_prompt` means default_system_prompt(). `provider` and `tools` must outlive the
// agent. Not thread-safe.
class ReactAgent final : public Agent {
public:
  ReactAgent(llm::Provider& provider, const tools::Registry& tools, tools::ToolContext tool_context,
             llm::ModelSpec model, AgentSettings settings);

  AgentOutcome run(std::vector<Message>& conversation, const CancelToken& cancel,
                   AttemptObserver& observer, EventSink& events) override;

private:
  // Runs the calls of the assistant message just appended; returns false when cancelled.
  bool run_tools(std::vector<Message>& conversation, AgentOutcome& outcome,
                 const CancelToken& cancel, AttemptObserver& observer, EventSink& events);

  llm::Provider& m_provider;
  const tools::Registry& m_tools;
  tools::ToolContext m_tool_context;
  llm::ModelSpec m_model;
  std::string m_model_label;
  AgentSettings m_settings;
  std::vector<ToolSpec> m_specs;
};

} // namespace ralph::agent
