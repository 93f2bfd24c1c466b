#pragma once

#include "llm/exchange.h"

#include "ralph/llm/provider.h"

#include <nlohmann/json_fwd.hpp>

#include <string_view>

namespace ralph::llm {

// The answer a Responses API response object holds (a whole body, or the `response` of a
// stream's terminal event): text of `message` items (a refusal part sets StopReason::refusal),
// `function_call` items as tool calls (call_id as id), `reasoning` summaries as thinking, usage
// (cached_tokens is part of input_tokens). Status `completed` ends the turn (tool_use when it
// called tools), `incomplete` maps its reason (max_output_tokens -> max_tokens, content_filter);
// `failed` and any other status (cancelled, or a background response not finished) are errors,
// a failed one retryable when its error code says the server failed.
Result<ChatResponse> read_responses_object(std::string_view provider, std::string_view secret,
                                           const nlohmann::json& response);

} // namespace ralph::llm
