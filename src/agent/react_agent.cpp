#include "ralph/agent/react_agent.h"

#include "ralph/agent/agent_steps.h"
#include "ralph/core/text.h"

#include <fmt/format.h>

#include <chrono>
#include <utility>

namespace ralph::agent {
const char* to_string(AgentStop stop) {
  switch (stop) {
  case AgentStop::answered:
    return "answered";
  case AgentStop::max_steps:
    return "max_steps";
  case AgentStop::cancelled:
    return "cancelled";
  case AgentStop::failed:
    return "failed";
  }
  return "failed";
}

ReactAgent::ReactAgent(llm::Provider& provider, const tools::Registry& tools,
                       tools::ToolContext tool_context, AgentOptions options)
    : m_provider(provider), m_tools(tools), m_tool_context(std::move(tool_context)),
      m_options(std::move(options)), m_specs(tools.specs()) {
  if (m_options.system_prompt.empty()) {
    m_options.system_prompt = default_system_prompt();
  }
}

AgentOutcome ReactAgent::run(std::vector<Message>& conversation, const CancelToken& cancel,
                             EventSink& events) {
  AgentOutcome outcome;
  llm::ChatRequest request;
  request.model = m_options.model;
  request.system = m_options.system_prompt;
  request.tools = m_specs;
  request.max_tokens = m_options.max_tokens;
  request.temperature = m_options.temperature;
  request.stream = m_options.stream;

  while (true) {
    if (cancel.cancelled()) {
      outcome.stop = AgentStop::cancelled;
      outcome.error = interrupted();
      return outcome;
    }
    const int step = ++outcome.steps;
    events.on_event(step_event(EventType::model_started, step));
    request.messages = conversation;
    StepObserver observer(events, step);
    auto response = m_provider.chat(request, &observer, cancel);
    if (!response) {
      Error error = std::move(response.error());
      const bool cancelled = error.kind == ErrorKind::cancelled || cancel.cancelled();
      outcome.stop = cancelled ? AgentStop::cancelled : AgentStop::failed;
      if (!cancelled) {
        events.on_event(error_event(step, error));
      }
      outcome.error = std::move(error);
      return outcome;
    }
    outcome.usage += response->usage;
    events.on_event(model_finished_event(step, *response));
    Message& reply = conversation.emplace_back(std::move(response->message));
    reply.role = Role::assistant;
    outcome.answer = reply.content;
    if (reply.tool_calls.empty()) {
      outcome.stop = AgentStop::answered;
      break;
    }
    if (step >= m_options.max_steps) {
      const std::vector<ToolCall> calls = reply.tool_calls;
      answer_unrun_calls(conversation, calls, 0,
                         fmt::format("the step budget of {} model calls ran out", step));
      outcome.stop = AgentStop::max_steps;
      break;
    }
    if (!run_tools(conversation, outcome, cancel, events)) {
      outcome.stop = AgentStop::cancelled;
      outcome.error = interrupted();
      return outcome;
    }
  }
  events.on_event(agent_finished_event(outcome));
  return outcome;
}

bool ReactAgent::run_tools(std::vector<Message>& conversation, AgentOutcome& outcome,
                           const CancelToken& cancel, EventSink& events) {
  tools::ToolContext context = m_tool_context;
  context.cancel = cancel;
  // Copied: appending results may reallocate the conversation under a reference.
  const std::vector<ToolCall> calls = conversation.back().tool_calls;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const ToolCall& call = calls[i];
    if (cancel.cancelled()) {
      answer_unrun_calls(conversation, calls, i, "interrupted");
      return false;
    }
    events.on_event(tool_started_event(outcome.steps, call));
    tools::ToolResult result = m_tools.run(call, context);
    ++outcome.tool_calls;
    // Built-in tools already give valid UTF-8; a library user's tool might not.
    std::string content =
        is_valid_utf8(result.content) ? std::move(result.content) : to_valid_utf8(result.content);
    Event finished =
        tool_finished_event(outcome.steps, call, content, result.is_error, result.duration);
    finished.exit_code = result.exit_code;
    events.on_event(finished);
    conversation.push_back(tool_message(call, std::move(content), result.is_error));
  }
  return !cancel.cancelled();
}

} // namespace ralph::agent
