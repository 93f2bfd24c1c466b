#include "ralph/core/message_json.h"

#include "ralph/core/json.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph {
namespace {

using json = nlohmann::json;

json message_to_json(const Message& message) {
  json out = {{"role", to_string(message.role)}, {"content", message.content}};
  if (!message.tool_calls.empty()) {
    json calls = json::array();
    for (const auto& call : message.tool_calls) {
      calls.push_back({{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
    }
    out["tool_calls"] = std::move(calls);
  }
  if (!message.thinking.empty()) {
    json blocks = json::array();
    for (const auto& block : message.thinking) {
      blocks.push_back({{"thinking", block.thinking},
                        {"signature", block.signature},
                        {"redacted", block.redacted},
                        {"data", block.redacted_data}});
    }
    out["thinking"] = std::move(blocks);
  }
  if (!message.tool_call_id.empty()) {
    out["tool_call_id"] = message.tool_call_id;
  }
  if (!message.tool_name.empty()) {
    out["tool_name"] = message.tool_name;
  }
  if (message.is_error) {
    out["is_error"] = true;
  }
  return out;
}

std::string text(const json& object, const char* key) {
  return std::string(string_member(object, key));
}

} // namespace

std::string messages_to_json(std::span<const Message> messages) {
  json out = json::array();
  for (const auto& message : messages) {
    out.push_back(message_to_json(message));
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<std::vector<Message>> messages_from_json(std::string_view text_json, std::string_view what) {
  TRY_ASSIGN(const json parsed, parse_json(text_json, what));
  if (!parsed.is_array()) {
    return fail(ErrorKind::parse, fmt::format("{}: expected a JSON array of messages", what));
  }
  std::vector<Message> messages;
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    const json& item = parsed[i];
    const auto role = item.is_object() ? value_of(k_role_names, text(item, "role")) : std::nullopt;
    if (!role) {
      return fail(ErrorKind::parse,
                  fmt::format("{}: message {}: expected an object with a known role", what, i));
    }
    Message message;
    message.role = *role;
    message.content = text(item, "content");
    message.tool_call_id = text(item, "tool_call_id");
    message.tool_name = text(item, "tool_name");
    message.is_error = bool_member(item, "is_error", false);
    for (const json& call : array_member(item, "tool_calls")) {
      message.tool_calls.push_back({text(call, "id"), text(call, "name"), text(call, "arguments")});
    }
    for (const json& block : array_member(item, "thinking")) {
      message.thinking.push_back({text(block, "thinking"), text(block, "signature"),
                                  bool_member(block, "redacted", false), text(block, "data")});
    }
    messages.push_back(std::move(message));
  }
  return messages;
}

} // namespace ralph
