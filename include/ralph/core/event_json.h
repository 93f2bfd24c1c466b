#pragma once

#include "ralph/core/event.h"

#include <nlohmann/json_fwd.hpp>

namespace ralph {

// An event as one JSON object, the form of the --events file (without its "session" and "time"):
// {"type": NAME, "iteration"?, "step"?, ...the payload's fields}. Fields that are empty, zero or
// unset are left out, except `exit_code` 0 and booleans that are true. Usage is {"input_tokens",
// "output_tokens"}; durations are whole milliseconds (`duration_ms`, `delay_ms`); a tool call is
// "name", "tool_call_id" and, when started, "arguments" (the raw text the model gave).
nlohmann::json event_to_json(const Event& event);

} // namespace ralph
