#pragma once

#include "ralph/core/enum_names.h"
#include "ralph/core/saturating.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ralph {

enum class Role { system, user, assistant, tool };
inline constexpr EnumName<Role> k_role_names[] = {{Role::system, "system"},
                                                  {Role::user, "user"},
                                                  {Role::assistant, "assistant"},
                                                  {Role::tool, "tool"}};

inline const char* to_string(Role role) {
  return name_of(k_role_names, role);
}

// A tool call as the model made it. `arguments` stays the raw JSON text the model produced
// (it may be invalid JSON; tools validate it), so it round-trips to the provider unchanged.
struct ToolCall {
  std::string id;
  std::string name;
  std::string arguments;

  bool operator==(const ToolCall&) const = default;
};

// Anthropic thinking blocks must be sent back unchanged, signature included.
struct ThinkingBlock {
  std::string thinking;
  std::string signature;
  bool redacted = false;
  std::string redacted_data;

  bool operator==(const ThinkingBlock&) const = default;
};

// One message of a conversation, provider-neutral.
//  - assistant: `content` text, optional `tool_calls`, optional `thinking`
//  - tool: the result of the call `tool_call_id` (named `tool_name`), `is_error` on failure
struct Message {
  Role role = Role::user;
  std::string content;
  std::vector<ToolCall> tool_calls;
  std::vector<ThinkingBlock> thinking;
  std::string tool_call_id;
  std::string tool_name;
  bool is_error = false;

  bool operator==(const Message&) const = default;
};

// Token counts of one or more model calls. `input_tokens` is the whole prompt size, cached
// parts included, whatever the provider's own convention.
struct Usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cache_read_tokens = 0;
  std::int64_t cache_write_tokens = 0;
  // The server reported no usage: the counts were estimated from the text sent and received.
  bool estimated = false;

  // Saturates at the int64 limits: the counts come from providers.
  Usage& operator+=(const Usage& other) {
    input_tokens = saturating_add(input_tokens, other.input_tokens);
    output_tokens = saturating_add(output_tokens, other.output_tokens);
    cache_read_tokens = saturating_add(cache_read_tokens, other.cache_read_tokens);
    cache_write_tokens = saturating_add(cache_write_tokens, other.cache_write_tokens);
    estimated = estimated || other.estimated;
    return *this;
  }
  std::int64_t total_tokens() const { return saturating_add(input_tokens, output_tokens); }
};

} // namespace ralph
