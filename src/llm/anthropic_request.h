#pragma once

#include "ralph/llm/provider.h"

#include <string>

namespace ralph::llm {

// The JSON body of a Messages request, written in one pass: `system` top-level (system-role
// messages are appended to it), `max_tokens` always, tools with `input_schema`. Tool results
// become `tool_result` blocks (`is_error` on failure) at the start of ONE user turn, consecutive
// ones merged, any user text after them. Assistant turns carry their thinking blocks unchanged
// (signature intact) before text and tool_use blocks; thinking without a signature (from another
// provider) is dropped, since Anthropic would reject it.
std::string build_anthropic_body(const ChatRequest& request);

} // namespace ralph::llm
