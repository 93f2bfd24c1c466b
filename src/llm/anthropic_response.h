#pragma once

#include "llm/exchange.h"

#include "ralph/llm/provider.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace ralph::llm {

// stop_reason -> StopReason; model_context_window_exceeded counts as max_tokens.
StopReason anthropic_stop_reason(std::string_view stop_reason);

// Anthropic's usage fields as sent. Streams repeat them cumulatively, so each update replaces.
struct AnthropicUsage {
  std::int64_t input = 0; // the uncached part only
  std::int64_t cache_creation = 0;
  std::int64_t cache_read = 0;
  std::int64_t output = 0;

  // Takes the fields present in `usage`, leaving the others.
  void update(const nlohmann::json& usage);
  // Usage::input_tokens is the whole prompt: input + cache creation + cache read.
  Usage total() const;
};

// One content block, as streamed or as found in a response's `content`.
struct AnthropicBlock {
  enum class Type { text, tool_use, thinking, redacted_thinking, other };
  Type type = Type::other;
  std::string text; // text, thinking, tool input JSON, or redacted data
  std::string id;   // tool_use
  std::string name; // tool_use
  std::string signature;
};

// Adds `block` to the assistant `message`: text is appended to content, tool_use becomes a call
// (all-empty input => {}; invalid JSON kept raw for the tool to report), thinking is kept whole.
void add_block(Message& message, AnthropicBlock block);

} // namespace ralph::llm
