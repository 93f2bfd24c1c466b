#pragma once

#include "ralph/agent/agent.h"
#include "ralph/core/error.h"
#include "ralph/core/event.h"
#include "ralph/core/message.h"
#include "ralph/llm/provider.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::agent {

// The pieces every inner loop repeats for each model call and tool call: the events the terminal
// and the record expect, the tool messages, and keeping the conversation valid when calls do not
// run. Shared so that agents of other layers (rlm's) report exactly as the ReAct agent does.

Event step_event(EventType type, int step);
// model_finished with the stop reason and the call's usage.
Event model_finished_event(int step, const llm::ChatResponse& response);
// error with the message and the error kind.
Event error_event(int step, const Error& error);
Event tool_started_event(int step, const ToolCall& call);
// agent_finished with the answer, the stop reason, the steps and the usage of the attempt.
Event agent_finished_event(const AgentOutcome& outcome);
Event tool_finished_event(int step, const ToolCall& call, std::string content, bool is_error,
                          std::chrono::milliseconds duration);

// Forwards a model call's streamed text, thinking and retries to `events`, stamped with `step`.
class StepObserver final : public llm::StreamObserver {
public:
  StepObserver(EventSink& events, int step) : m_events(events), m_step(step) {}

  void on_text(std::string_view delta) override;
  void on_thinking(std::string_view delta) override;
  void on_retry(const Error& error, int attempt, std::chrono::milliseconds delay) override;

private:
  EventSink& m_events;
  int m_step;
};

Message tool_message(const ToolCall& call, std::string content, bool is_error);

// Calls that will not run still need a result: providers reject a conversation in which a tool
// call goes unanswered, and a later attempt continues from this one. Answers calls[first..] with
// "[not run: REASON]" error results.
void answer_unrun_calls(std::vector<Message>& conversation, const std::vector<ToolCall>& calls,
                        std::size_t first, std::string_view reason);

// The error of an attempt stopped by its CancelToken.
Error interrupted();

} // namespace ralph::agent
