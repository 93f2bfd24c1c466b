#include "llm/anthropic_response.h"

#include "llm/body_reader.h"
#include "llm/json_fields.h"
#include "llm/provider_error.h"

#include "ralph/core/json.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::llm {
namespace {

// A body with the value of each content block's "input" replaced by null, and those values' text
// by block index.
struct ToolInputs {
  std::string body;
  std::map<std::size_t, std::string_view> raw;
};

// Takes each tool_use block's input out of `text` as the text the model sent, as a streamed one
// is: input nested deeper than a parse allows, or holding a number no double holds (1e999),
// then reaches the tool as its error (which the model sees) instead of failing the response.
// Walks the structure only (strings, brackets, commas), without a stack of calls; malformed text
// is left as it is, for the parse to report.
ToolInputs split_tool_inputs(std::string_view text) {
  struct Level {
    bool object = false;
    bool want_key = false; // objects: the next string is a key
    std::string_view key;  // objects: the member whose value comes next
    std::size_t index = 0; // arrays: the element coming next
  };
  constexpr std::size_t k_none = std::string_view::npos;
  std::vector<Level> stack;
  ToolInputs out;
  std::size_t start = k_none; // of the input value being read
  std::size_t block = 0;
  const auto at_input = [&stack] {
    return stack.size() == 3 && stack[0].object && stack[0].key == "content" && !stack[1].object &&
           stack[2].object && !stack[2].want_key && stack[2].key == "input";
  };
  const auto begin_value = [&](std::size_t at) {
    if (start == k_none && at_input()) {
      start = at;
      block = stack[1].index;
    }
  };
  const auto end_value = [&](std::size_t end) {
    if (start != k_none && stack.size() == 3) {
      out.raw.emplace(block, text.substr(start, end - start));
      start = k_none;
    }
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ':') {
      ++i;
    } else if (c == '"') {
      std::size_t end = i + 1;
      while (end < text.size() && text[end] != '"') {
        end += text[end] == '\\' ? 2 : 1;
      }
      if (end >= text.size()) {
        return {std::string(text), {}};
      }
      if (!stack.empty() && stack.back().object && stack.back().want_key) {
        stack.back().key = text.substr(i + 1, end - i - 1);
        stack.back().want_key = false;
      } else {
        begin_value(i);
        end_value(end + 1);
      }
      i = end + 1;
    } else if (c == '{' || c == '[') {
      begin_value(i);
      stack.push_back({.object = c == '{', .want_key = c == '{'});
      ++i;
    } else if (c == '}' || c == ']') {
      if (stack.empty() || stack.back().object != (c == '}')) {
        return {std::string(text), {}};
      }
      stack.pop_back();
      ++i;
      end_value(i);
    } else if (c == ',') {
      if (stack.empty()) {
        return {std::string(text), {}};
      }
      stack.back().want_key = stack.back().object;
      ++stack.back().index;
      ++i;
    } else {
      begin_value(i);
      while (i < text.size() && std::string_view(",]} \t\r\n:").find(text[i]) == k_none) {
        ++i;
      }
      end_value(i);
    }
  }
  std::size_t copied = 0;
  for (const auto& [index, value] : out.raw) {
    const auto at = static_cast<std::size_t>(value.data() - text.data());
    out.body.append(text.substr(copied, at - copied)).append("null");
    copied = at + value.size();
  }
  out.body.append(text.substr(copied));
  return out;
}

} // namespace

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
  const ToolInputs inputs = split_tool_inputs(response.body);
  TRY_ASSIGN(const nlohmann::json body,
             parse_json(inputs.body, fmt::format("{}: response body", provider)));
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
  for (std::size_t index = 0; index < content->size(); ++index) {
    const nlohmann::json& item = (*content)[index];
    AnthropicBlock block;
    const std::string_view type = string_member(item, "type");
    if (type == "text") {
      block.type = AnthropicBlock::Type::text;
      block.text = string_member(item, "text");
    } else if (type == "tool_use") {
      block.type = AnthropicBlock::Type::tool_use;
      block.id = string_member(item, "id");
      block.name = string_member(item, "name");
      const auto input = inputs.raw.find(index);
      block.text = input == inputs.raw.end() ? "{}" : std::string(input->second);
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
