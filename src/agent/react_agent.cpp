#include "ralph/agent/react_agent.h"

#include "ralph/agent/agent_steps.h"
#include "ralph/core/text.h"

#include <fmt/format.h>

#include <utility>

namespace ralph::agent {

ReactAgent::ReactAgent(llm::Provider& provider, const tools::Registry& tools,
                       tools::ToolContext tool_context, llm::ModelSpec model,
                       AgentSettings settings)
    : m_provider(provider), m_tools(tools), m_tool_context(std::move(tool_context)),
      m_model(std::move(model)), m_model_label(m_model.label()), m_settings(std::move(settings)),
      m_specs(tools.specs()) {
  if (m_settings.system_prompt.empty()) {
    m_settings.system_prompt = default_system_prompt();
  }
}

AgentOutcome ReactAgent::run(std::vector<Message>& conversation, const CancelToken& cancel,
                             AttemptObserver& observer, EventSink& events) {
  AgentOutcome outcome;
  llm::ChatRequest request;
  request.model = m_model.model;
  request.system = m_settings.system_prompt;
  request.tools = m_specs;
  request.max_tokens = m_settings.max_tokens;
  request.temperature = m_settings.temperature;
  request.stream = m_settings.stream;

  while (true) {
    if (cancel.cancelled()) {
      outcome.stop = AgentStop::cancelled;
      outcome.error = interrupted();
      return outcome;
    }
    const int step = ++outcome.steps;
    events.on_event(model_started_event(step));
    request.messages = conversation;
    StepObserver stream(events, step);
    auto response = m_provider.chat(request, &stream, cancel);
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
    observer.model_call_finished(model_call(step, m_model_label, *response));
    Message& reply = conversation.emplace_back(std::move(response->message));
    reply.role = Role::assistant;
    outcome.answer = reply.content;
    if (reply.tool_calls.empty()) {
      outcome.stop = AgentStop::answered;
      break;
    }
    if (step >= m_settings.max_steps) {
      const std::vector<ToolCall> calls = reply.tool_calls;
      answer_unrun_calls(conversation, calls, 0,
                         fmt::format("the step budget of {} model calls ran out", step));
      outcome.stop = AgentStop::max_steps;
      break;
    }
    if (!run_tools(conversation, outcome, cancel, observer, events)) {
      outcome.stop = AgentStop::cancelled;
      outcome.error = interrupted();
      return outcome;
    }
  }
  events.on_event(agent_finished_event(outcome));
  return outcome;
}

bool ReactAgent::run_tools(std::vector<Message>& conversation, AgentOutcome& outcome,
                           const CancelToken& cancel, AttemptObserver& observer,
                           EventSink& events) {
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
    context.on_progress = [&events, &call,
                           step = outcome.steps](const tools::ToolProgressUpdate& update) {
      events.on_event(Event{.step = step,
                            .payload = event::ToolProgress{.call_id = call.id,
                                                           .tool = call.name,
                                                           .progress = update.progress,
                                                           .total = update.total,
                                                           .message = update.message}});
    };
    tools::ToolResult result = m_tools.run(call, context);
    ++outcome.tool_calls;
    // Built-in tools already give valid UTF-8; a library user's tool might not.
    if (!is_valid_utf8(result.content)) {
      result.content = to_valid_utf8(result.content);
    }
    observer.tool_call_finished(outcome.steps, call, result);
    conversation.push_back(tool_message(call, std::move(result.content), result.is_error));
  }
  return !cancel.cancelled();
}

} // namespace ralph::agent
