#include "ralph/agent/react_agent.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <chrono>
#include <utility>

namespace ralph::agent {
namespace {

Event make_event(EventType type, int step) {
  Event event;
  event.type = type;
  event.step = step;
  return event;
}

// Forwards streamed pieces to the event sink as they arrive.
class EventObserver final : public llm::StreamObserver {
public:
  EventObserver(EventSink& events, int step) : m_events(events), m_step(step) {}

  void on_text(std::string_view delta) override { emit(EventType::text_delta, delta); }
  void on_thinking(std::string_view delta) override { emit(EventType::thinking_delta, delta); }
  void on_retry(const Error& error, int attempt, std::chrono::milliseconds delay) override {
    Event event = make_event(EventType::retry, m_step);
    event.detail = error.message;
    event.number = attempt;
    event.duration_ms = delay.count();
    m_events.on_event(event);
  }

private:
  void emit(EventType type, std::string_view text) {
    Event event = make_event(type, m_step);
    event.text = text;
    m_events.on_event(event);
  }

  EventSink& m_events;
  int m_step;
};

Message tool_message(const ToolCall& call, std::string content, bool is_error) {
  Message message;
  message.role = Role::tool;
  message.tool_call_id = call.id;
  message.tool_name = call.name;
  message.content = std::move(content);
  message.is_error = is_error;
  return message;
}

// Calls that will not run still need a result: providers reject a conversation in which a tool
// call goes unanswered, and a later attempt continues from this one.
void answer_unrun_calls(std::vector<Message>& conversation, const std::vector<ToolCall>& calls,
                        std::size_t first, std::string_view reason) {
  for (std::size_t i = first; i < calls.size(); ++i) {
    conversation.push_back(tool_message(calls[i], fmt::format("[not run: {}]", reason), true));
  }
}

Error interrupted() {
  Error error;
  error.kind = ErrorKind::cancelled;
  error.message = "interrupted";
  return error;
}

} // namespace

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
    events.on_event(make_event(EventType::model_started, step));
    request.messages = conversation;
    EventObserver observer(events, step);
    auto response = m_provider.chat(request, &observer, cancel);
    if (!response) {
      Error error = std::move(response.error());
      const bool cancelled = error.kind == ErrorKind::cancelled || cancel.cancelled();
      outcome.stop = cancelled ? AgentStop::cancelled : AgentStop::failed;
      if (!cancelled) {
        Event failed = make_event(EventType::error, step);
        failed.text = error.message;
        failed.detail = ralph::to_string(error.kind);
        events.on_event(failed);
      }
      outcome.error = std::move(error);
      return outcome;
    }
    outcome.usage += response->usage;
    Event finished = make_event(EventType::model_finished, step);
    finished.detail = llm::to_string(response->stop_reason);
    finished.usage = response->usage;
    events.on_event(finished);
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
  Event finished = make_event(EventType::agent_finished, outcome.steps);
  finished.text = outcome.answer;
  finished.detail = to_string(outcome.stop);
  finished.usage = outcome.usage;
  events.on_event(finished);
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
    Event started = make_event(EventType::tool_started, outcome.steps);
    started.text = call.arguments;
    started.name = call.name;
    started.tool_call_id = call.id;
    events.on_event(started);
    tools::ToolResult result = m_tools.run(call, context);
    ++outcome.tool_calls;
    // Built-in tools already give valid UTF-8; a library user's tool might not.
    std::string content =
        is_valid_utf8(result.content) ? std::move(result.content) : to_valid_utf8(result.content);
    Event finished = make_event(EventType::tool_finished, outcome.steps);
    finished.text = content;
    finished.name = call.name;
    finished.tool_call_id = call.id;
    finished.duration_ms = result.duration.count();
    finished.exit_code = result.exit_code;
    finished.is_error = result.is_error;
    events.on_event(finished);
    conversation.push_back(tool_message(call, std::move(content), result.is_error));
  }
  return !cancel.cancelled();
}

} // namespace ralph::agent
