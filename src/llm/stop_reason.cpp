#include "ralph/llm/provider.h"

namespace ralph::llm {

const char* to_string(StopReason reason) {
  switch (reason) {
  case StopReason::end_turn:
    return "end_turn";
  case StopReason::tool_use:
    return "tool_use";
  case StopReason::max_tokens:
    return "max_tokens";
  case StopReason::stop_sequence:
    return "stop_sequence";
  case StopReason::content_filter:
    return "content_filter";
  case StopReason::refusal:
    return "refusal";
  case StopReason::pause_turn:
    return "pause_turn";
  case StopReason::unknown:
    return "unknown";
  }
  return "unknown";
}

} // namespace ralph::llm
