#pragma once

#include "ralph/llm/openai_provider.h"
#include "ralph/llm/provider.h"

#include <string>

namespace ralph::llm {

// The JSON body of a Chat Completions request, written in one pass. Assistant messages go back
// exactly as received (content null when empty, tool_calls with the raw argument text); each
// tool result is a `tool` message with its tool_call_id. `stream_options` only when streaming.
std::string build_openai_body(const OpenAiDialect& dialect, const ChatRequest& request);

} // namespace ralph::llm
