#pragma once

#include "ralph/llm/provider.h"

#include <string>

namespace ralph::llm {

// The JSON body of a Responses API request, written in one pass: the system prompt as
// `instructions`, the conversation as `input` items (messages; each assistant tool call as a
// `function_call` item with its call_id and raw arguments; each tool result as a
// `function_call_output`), flat `strict:false` function tools (the API's default is strict, which
// rejects ordinary schemas), `max_output_tokens`, `text.format` for a JSON schema, `store:false`.
std::string build_responses_body(const ChatRequest& request);

} // namespace ralph::llm
