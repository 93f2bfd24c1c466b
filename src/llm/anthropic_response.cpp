#include "llm/anthropic_response.h"

#include "llm/body_reader.h"
#include "llm/json_fields.h"
#include "llm/provider_error.h"

#include "ralph/core/json.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::llm {

StopReason anthropic_stop_reason(std::string_view stop_reason) {
  if (stop_reason == "end_turn") {
    return StopReason::end_turn;
  }
  if (stop_reason == "tool_use") {
    return StopReason::tool_use;
  }
  if (stop_reason == "max_tokens" || stop_reason == "model_context_window_exceeded") {
    return StopReason::max_tokens;
  }
  if (stop_reason == "stop_sequence") {
    return StopReason::stop_sequence;
  }
  if (stop_reason == "pause_turn") {
    return StopReason::pause_turn;
  }
  if (stop_reason == "refusal") {
    return StopReason::refusal;
  }
  return StopReason::unknown;
}

void AnthropicUsage::update(const nlohmann::json& usage) {
  input = int_member(usage, "input_tokens").value_or(input);
  cache_creation = int_member(usage, "cache_creation_input_tokens").value_or(cache_creation);
  cache_read = int_member(usage, "cache_read_input_tokens").value_or(cache_read);
  output = int_member(usage, "output_tokens").value_or(output);
}

Usage AnthropicUsage::total() const {
  Usage usage;
  usage.input_tokens = saturating_add(saturating_add(input, cache_creation), cache_read);
  usage.output_tokens = output;
  usage.cache_read_tokens = cache_read;
  usage.cache_write_tokens = cache_creation;
  return usage;
}

void add_block(Message& message, AnthropicBlock block) {
  switch (block.type) {
  case AnthropicBlock::Type::text:
    message.content.append(block.text);
    break;
  case AnthropicBlock::Type::tool_use:
    message.tool_calls.push_back(ToolCall{std::move(block.id), std::move(block.name),
                                          arguments_or_empty_object(std::move(block.text))});
    break;
  case AnthropicBlock::Type::thinking:
    message.thinking.push_back(
        ThinkingBlock{.thinking = std::move(block.text), .signature = std::move(block.signature)});
    break;
  case AnthropicBlock::Type::redacted_thinking:
    message.thinking.push_back(
        ThinkingBlock{.redacted = true, .redacted_data = std::move(block.text)});
    break;
  case AnthropicBlock::Type::other:
    break; // server-tool blocks and future types
  }
}

Result<ChatResponse> read_anthropic_body(std::string_view provider, std::string_view secret,
                                         const http::Response& response) {
  TRY_ASSIGN(const nlohmann::json body,
             parse_json(response.body, fmt::format("{}: response body", provider)));
  if (string_member(body, "type") == "error" || member(body, "error") != nullptr) {
    return fail(payload_error(provider, body, secret));
  }
  const nlohmann::json* content = member(body, "content");
  if (content == nullptr || !content->is_array()) {
    return fail(ErrorKind::parse, fmt::format("{}: response has no content", provider));
  }

  ChatResponse out;
  out.message.role = Role::assistant;
  out.model = string_member(body, "model");
  for (const nlohmann::json& item : *content) {
    AnthropicBlock block;
    const std::string_view type = string_member(item, "type");
    if (type == "text") {
      block.type = AnthropicBlock::Type::text;
      block.text = string_member(item, "text");
    } else if (type == "tool_use") {
      block.type = AnthropicBlock::Type::tool_use;
      block.id = string_member(item, "id");
      block.name = string_member(item, "name");
      const nlohmann::json* input = member(item, "input");
      block.text = input == nullptr ? "{}" : input->dump();
    } else if (type == "thinking") {
      block.type = AnthropicBlock::Type::thinking;
      block.text = string_member(item, "thinking");
      block.signature = string_member(item, "signature");
    } else if (type == "redacted_thinking") {
      block.type = AnthropicBlock::Type::redacted_thinking;
      block.text = string_member(item, "data");
    }
    add_block(out.message, std::move(block));
  }
  out.raw_stop_reason = string_member(body, "stop_reason");
  out.stop_reason = anthropic_stop_reason(out.raw_stop_reason);
  if (const nlohmann::json* usage = member(body, "usage")) {
    AnthropicUsage raw;
    raw.update(*usage);
    out.usage = raw.total();
  }
  return out;
}

} // namespace ralph::llm
