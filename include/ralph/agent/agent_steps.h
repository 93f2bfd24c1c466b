#pragma once

#include "ralph/agent/agent.h"
#include "ralph/agent/attempt_observer.h"
#include "ralph/core/error.h"
#include "ralph/core/event.h"
#include "ralph/core/message.h"
#include "ralph/llm/provider.h"
#include "ralph/tools/tool.h"

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::agent {

// The pieces every inner loop repeats for each model call and tool call: the facts and events
// the loop and the terminal expect, the tool messages, and keeping the conversation valid when
// calls do not run. Shared so that agents of other layers (rlm's, docqa's) report exactly as the
// ReAct agent does.

// The fact of a model call that returned `response`, made for model `model` ("provider/model").
ModelCall model_call(int step, const std::string& model, const llm::ChatResponse& response);

// How a model call stopped, as shown and recorded: the stop reason's name, or "sub_queries".
std::string stop_reason_name(const ModelCall& call);

// The events that show a fact; emitted by whoever observes the facts (the loop).
Event model_finished_event(const ModelCall& call);
Event tool_finished_event(int step, const ToolCall& call, const tools::ToolResult& result);

Event model_started_event(int step);
Event tool_started_event(int step, const ToolCall& call);
Event error_event(int step, const Error& error);
Event warning_event(int step, std::string text);
// The answer, the stop reason, the steps and the usage of the attempt.
Event agent_finished_event(const AgentOutcome& outcome);

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
