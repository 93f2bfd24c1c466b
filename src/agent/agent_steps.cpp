#include "ralph/agent/agent_steps.h"

#include <fmt/format.h>

#include <utility>

namespace ralph::agent {

Event step_event(EventType type, int step) {
  Event event;
  event.type = type;
  event.step = step;
  return event;
}

Event model_finished_event(int step, const llm::ChatResponse& response) {
  Event event = step_event(EventType::model_finished, step);
  event.detail = llm::to_string(response.stop_reason);
  event.usage = response.usage;
  return event;
}

Event error_event(int step, const Error& error) {
  Event event = step_event(EventType::error, step);
  event.text = error.message;
  event.detail = ralph::to_string(error.kind);
  return event;
}

Event tool_started_event(int step, const ToolCall& call) {
  Event event = step_event(EventType::tool_started, step);
  event.text = call.arguments;
  event.name = call.name;
  event.tool_call_id = call.id;
  return event;
}

Event agent_finished_event(const AgentOutcome& outcome) {
  Event event = step_event(EventType::agent_finished, outcome.steps);
  event.text = outcome.answer;
  event.detail = to_string(outcome.stop);
  event.usage = outcome.usage;
  return event;
}

Event tool_finished_event(int step, const ToolCall& call, std::string content, bool is_error,
                          std::chrono::milliseconds duration) {
  Event event = step_event(EventType::tool_finished, step);
  event.text = std::move(content);
  event.name = call.name;
  event.tool_call_id = call.id;
  event.duration_ms = duration.count();
  event.is_error = is_error;
  return event;
}

void StepObserver::on_text(std::string_view delta) {
  Event event = step_event(EventType::text_delta, m_step);
  event.text = delta;
  m_events.on_event(event);
}

void StepObserver::on_thinking(std::string_view delta) {
  Event event = step_event(EventType::thinking_delta, m_step);
  event.text = delta;
  m_events.on_event(event);
}

void StepObserver::on_retry(const Error& error, int attempt, std::chrono::milliseconds delay) {
  Event event = step_event(EventType::retry, m_step);
  event.detail = error.message;
  event.number = attempt;
  event.duration_ms = delay.count();
  m_events.on_event(event);
}

Message tool_message(const ToolCall& call, std::string content, bool is_error) {
  Message message;
  message.role = Role::tool;
  message.tool_call_id = call.id;
  message.tool_name = call.name;
  message.content = std::move(content);
  message.is_error = is_error;
  return message;
}

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

} // namespace ralph::agent
