#pragma once

#include "ralph/core/message.h"
#include "ralph/core/tool_spec.h"
#include "ralph/rlm/rlm_agent.h"

#include <span>
#include <string>
#include <string_view>

namespace ralph::rlm {

// The attempt's system prompt: the caller's instructions, then how to work in RLM mode (the
// document is not in the context, explore it with `language` code, sub-queries on slices, keep
// output small, answer without the tool when done).
std::string rlm_system_prompt(const RlmOptions& options, std::string_view language);

// The one tool: named `language`, one string parameter `code`; its description carries the
// sandbox's API.
ToolSpec code_tool(std::string_view language, std::string_view api_description);

// The fallback extraction call, made when the steps ran out: the caller's instructions, then what
// to do with the record.
std::string fallback_system_prompt(const RlmOptions& options);
// Its one user message: the request (the conversation's first user message), any later user
// messages (feedback), and the rendered trajectory.
std::string fallback_user_message(std::span<const Message> conversation, const RlmOptions& options,
                                  std::string_view trajectory);

} // namespace ralph::rlm
