// String names of the core enums, used in events, JSON output and error messages.
#include "ralph/core/error.h"
#include "ralph/core/event.h"
#include "ralph/core/message.h"

namespace ralph {

const char* to_string(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::usage:
    return "usage";
  case ErrorKind::config:
    return "config";
  case ErrorKind::io:
    return "io";
  case ErrorKind::network:
    return "network";
  case ErrorKind::timeout:
    return "timeout";
  case ErrorKind::provider:
    return "provider";
  case ErrorKind::parse:
    return "parse";
  case ErrorKind::tool:
    return "tool";
  case ErrorKind::subprocess:
    return "subprocess";
  case ErrorKind::store:
    return "store";
  case ErrorKind::cancelled:
    return "cancelled";
  case ErrorKind::internal:
    return "internal";
  }
  return "internal";
}

const char* to_string(Role role) {
  switch (role) {
  case Role::system:
    return "system";
  case Role::user:
    return "user";
  case Role::assistant:
    return "assistant";
  case Role::tool:
    return "tool";
  }
  return "user";
}

const char* to_string(EventType type) {
  switch (type) {
  case EventType::run_started:
    return "run_started";
  case EventType::attempt_started:
    return "attempt_started";
  case EventType::model_started:
    return "model_started";
  case EventType::text_delta:
    return "text_delta";
  case EventType::thinking_delta:
    return "thinking_delta";
  case EventType::model_finished:
    return "model_finished";
  case EventType::tool_started:
    return "tool_started";
  case EventType::tool_finished:
    return "tool_finished";
  case EventType::retry:
    return "retry";
  case EventType::warning:
    return "warning";
  case EventType::agent_finished:
    return "agent_finished";
  case EventType::attempt_finished:
    return "attempt_finished";
  case EventType::verification_skipped:
    return "verification_skipped";
  case EventType::verifier_started:
    return "verifier_started";
  case EventType::verdict:
    return "verdict";
  case EventType::feedback:
    return "feedback";
  case EventType::budget_warning:
    return "budget_warning";
  case EventType::status:
    return "status";
  case EventType::error:
    return "error";
  }
  return "warning";
}

} // namespace ralph
