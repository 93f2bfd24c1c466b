#pragma once

#include "ralph/llm/provider.h"

#include <cstddef>
#include <cstdint>

namespace ralph::llm {

// About four bytes of English or code per token, rounded up: the rule of thumb the providers
// themselves quote. An estimate, never shown without saying so (Usage::estimated).
std::int64_t estimate_tokens(std::size_t bytes);

// The bytes of text a request sends: system prompt, messages, tool calls and tool definitions.
std::size_t request_bytes(const ChatRequest& request);

// When the server reported no usage (no input tokens: no real request is free), estimates it
// from the text sent and received and marks it estimated, so budgets still hold.
void estimate_missing_usage(const ChatRequest& request, ChatResponse& response);

// The same on a provider's result, passing errors through.
Result<ChatResponse> with_usage(const ChatRequest& request, Result<ChatResponse> response);

} // namespace ralph::llm
