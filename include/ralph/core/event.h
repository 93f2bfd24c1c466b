#pragma once

#include "ralph/core/message.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ralph {

// Everything the runtime does that someone may want to watch. Core code never prints; the
// terminal view, the NDJSON writer, the store and the server are EventSinks.
enum class EventType {
  run_started,          // text: goal; detail: model
  attempt_started,      // iteration; number: iterations allowed
  model_started,        // step: inner step about to call the model
  text_delta,           // text: a piece of streamed answer text
  thinking_delta,       // text: a piece of streamed reasoning text
  model_finished,       // step; detail: stop reason; usage: this call's tokens
  tool_started,         // name, tool_call_id, text: arguments JSON
  tool_finished,        // name, tool_call_id, text: result (may be capped), is_error, exit_code
  retry,                // detail: why; number: attempt; duration_ms: delay before the next try
  warning,              // text
  agent_finished,       // text: final answer; detail: stop reason; step: steps used
  attempt_finished,     // iteration; text: answer; detail: why the agent stopped
  verification_skipped, // iteration; detail: reason (pre-check or trigger)
  verifier_started,     // iteration; name: verifier
  verdict,              // iteration; name; result; category; text: feedback; exit_code; duration_ms
  feedback,             // iteration; detail: mode (append, continue); text: what the agent is told
  budget_warning,       // detail: budget (tokens, cost, time, iterations); number: percent used
  status,               // detail: final status; text: why; iteration: attempts made
  error,                // text: message; detail: error kind
};

const char* to_string(EventType type);

// One event. A flat struct rather than a variant: sinks switch on `type` and read the fields
// documented for it above; unused fields stay empty.
struct Event {
  EventType type = EventType::warning;
  int iteration = 0; // outer-loop attempt, 1-based; 0 outside the loop
  int step = 0;      // inner step of the attempt
  std::string text;
  std::string detail;
  std::string name; // tool or verifier
  std::string tool_call_id;
  std::string result;   // verdict: pass, fail, error
  std::string category; // verdict category
  std::int64_t number = 0;
  std::int64_t duration_ms = 0;
  std::optional<int> exit_code;
  bool is_error = false;
  Usage usage;
};

// Receives events. Implementations document their own thread-safety; the agent and the loop
// emit from the thread that runs them.
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
