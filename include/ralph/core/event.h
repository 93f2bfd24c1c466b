#pragma once

#include "ralph/core/message.h"

#include <cstdint>
#include <string>

namespace ralph {

// Everything the runtime does that someone may want to watch. Core code never prints; the
// terminal view, NDJSON writer, store and server are EventSinks.
enum class EventType {
  run_started,    // text: goal; detail: model
  model_started,  // step: inner step about to call the model
  text_delta,     // text: a piece of streamed answer text
  thinking_delta, // text: a piece of streamed reasoning text
  model_finished, // step; detail: stop reason; usage: this call's tokens
  tool_started,   // tool_name, tool_call_id, text: arguments JSON
  tool_finished,  // tool_name, tool_call_id, text: result (may be capped), is_error, exit_code
  retry,          // detail: why; number: attempt; duration_ms: delay before the next try
  warning,        // text
  agent_finished, // text: final answer; detail: stop reason; step: steps used
  error,          // text: message; detail: error kind
};

const char* to_string(EventType type);

// One event. A flat struct rather than a variant: sinks switch on `type` and read the fields
// documented for it above; unused fields stay empty.
struct Event {
  EventType type = EventType::warning;
  std::string text;
  std::string detail;
  std::string tool_name;
  std::string tool_call_id;
  int step = 0;
  std::int64_t number = 0;
  std::int64_t duration_ms = 0;
  int exit_code = 0;
  bool is_error = false;
  Usage usage;
};

// Receives events. Implementations document their own thread-safety; the agent emits from the
// thread that runs it.
class EventSink {
public:
  virtual ~EventSink() = default;
  virtual void on_event(const Event& event) = 0;
};

// Drops every event.
class NullEventSink final : public EventSink {
public:
  void on_event(const Event&) override {}
};

} // namespace ralph
