#pragma once

#include "llm/exchange.h"

#include "ralph/llm/provider.h"

#include <nlohmann/json_fwd.hpp>

#include <string_view>

namespace ralph::llm {

// finish_reason -> StopReason; unknown values (and none) map to StopReason::unknown.
StopReason openai_stop_reason(std::string_view finish_reason);

// `usage` of a response or chunk; cached_tokens is already part of prompt_tokens.
Usage openai_usage(const nlohmann::json& usage);

// Gives calls the model left without an id one ("call_1", ...) and turns empty arguments
// into "{}", so every call can be answered.
void complete_tool_calls(std::vector<ToolCall>& calls);

} // namespace ralph::llm
