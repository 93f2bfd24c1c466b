#include "ralph/agent/agent_steps.h"

#include <fmt/format.h>

#include <utility>

namespace ralph::agent {

std::string stop_reason_name(const ModelCall& call) {
  return call.stop_reason ? llm::to_string(*call.stop_reason) : "sub_queries";
}

ModelCall model_call(int step, const std::string& model, const llm::ChatResponse& response) {
  return ModelCall{
      .step = step, .model = model, .usage = response.usage, .stop_reason = response.stop_reason};
}

Event model_finished_event(const ModelCall& call) {
  return Event{.step = call.step,
               .payload = event::ModelFinished{.model = call.model,
                                               .stop_reason = stop_reason_name(call),
                                               .usage = call.usage,
                                               .requests = call.requests}};
}

Event tool_finished_event(int step, const ToolCall& call, const tools::ToolResult& result) {
  return Event{.step = step,
               .payload = event::ToolFinished{.call = call,
                                              .result = result.content,
                                              .is_error = result.is_error,
                                              .exit_code = result.exit_code,
                                              .duration = result.duration}};
}

Event model_started_event(int step) {
  return Event{.step = step, .payload = event::ModelStarted{}};
}

Event tool_started_event(int step, const ToolCall& call) {
  return Event{.step = step, .payload = event::ToolStarted{.call = call}};
}

Event error_event(int step, const Error& error) {
  return Event{.step = step,
               .payload = event::Failure{.kind = error.kind, .message = error.message}};
}

Event warning_event(int step, std::string text) {
  return Event{.step = step, .payload = event::Warning{.text = std::move(text)}};
}

Event agent_finished_event(const AgentOutcome& outcome) {
  return Event{.step = outcome.steps,
               .payload = event::AgentFinished{.answer = outcome.answer,
                                               .stop = to_string(outcome.stop),
                                               .steps = outcome.steps,
                                               .usage = outcome.usage,
                                               .agent_session = outcome.agent_session}};
}

void StepObserver::on_text(std::string_view delta) {
  m_events.on_event(Event{.step = m_step, .payload = event::TextDelta{.text = std::string(delta)}});
}

void StepObserver::on_thinking(std::string_view delta) {
  m_events.on_event(
      Event{.step = m_step, .payload = event::ThinkingDelta{.text = std::string(delta)}});
}

void StepObserver::on_retry(const Error& error, int attempt, std::chrono::milliseconds delay) {
  m_events.on_event(
      Event{.step = m_step,
            .payload = event::Retry{.reason = error.message, .attempt = attempt, .delay = delay}});
}

Message tool_message(const ToolCall& call, std::string content, bool is_error) {
  return Message{.role = Role::tool,
                 .content = std::move(content),
                 .tool_call_id = call.id,
                 .tool_name = call.name,
                 .is_error = is_error};
}

void answer_unrun_calls(std::vector<Message>& conversation, const std::vector<ToolCall>& calls,
                        std::size_t first, std::string_view reason) {
  for (std::size_t i = first; i < calls.size(); ++i) {
    conversation.push_back(tool_message(calls[i], fmt::format("[not run: {}]", reason), true));
  }
}

Error interrupted() {
  return Error{.kind = ErrorKind::cancelled, .message = "interrupted"};
}

} // namespace ralph::agent
