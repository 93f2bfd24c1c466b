#include "ralph/verify/attempt_json.h"

#include "ralph/core/json.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace ralph::verify {
namespace {

using nlohmann::json;

// Models write invalid JSON arguments now and then; the program still sees what was sent.
json arguments_value(const std::string& arguments) {
  auto parsed = parse_json(arguments, "tool arguments");
  if (parsed) {
    return std::move(*parsed);
  }
  return arguments;
}

json tool_call_json(const ToolCall& call) {
  return {{"id", call.id}, {"name", call.name}, {"arguments", arguments_value(call.arguments)}};
}

json message_json(const Message& message) {
  json out = {{"role", to_string(message.role)}, {"content", message.content}};
  if (!message.tool_calls.empty()) {
    json calls = json::array();
    for (const ToolCall& call : message.tool_calls) {
      calls.push_back(tool_call_json(call));
    }
    out["tool_calls"] = std::move(calls);
  }
  if (message.role == Role::tool) {
    out["tool_call_id"] = message.tool_call_id;
    out["tool_name"] = message.tool_name;
    out["is_error"] = message.is_error;
  }
  return out;
}

json tool_record_json(const ToolRecord& tool) {
  return {{"id", tool.id},
          {"name", tool.name},
          {"arguments", arguments_value(tool.arguments)},
          {"exit_code", tool.exit_code ? json(*tool.exit_code) : json(nullptr)},
          {"is_error", tool.is_error},
          {"changed_workspace", tool.changed_workspace},
          {"duration_ms", tool.duration_ms}};
}

} // namespace

std::string attempt_to_json(const Attempt& attempt) {
  json tools = json::array();
  for (const ToolRecord& tool : attempt.tools) {
    tools.push_back(tool_record_json(tool));
  }
  json messages = json::array();
  const std::size_t begin = std::min(attempt.attempt_begin, attempt.conversation.size());
  for (const Message& message : attempt.conversation.subspan(begin)) {
    messages.push_back(message_json(message));
  }
  const json out = {
      {"version", 1},
      {"iteration", attempt.iteration},
      {"max_iterations", attempt.max_iterations},
      {"goal", attempt.goal},
      {"answer", attempt.answer},
      {"raw_answer", attempt.raw_answer},
      {"workspace", attempt.workspace.string()},
      {"heartbeat", attempt.heartbeat},
      {"metadata",
       {{"stop_reason", attempt.metadata.stop_reason},
        {"duration_ms", attempt.metadata.duration_ms},
        {"steps", attempt.metadata.steps},
        {"tool_calls", attempt.metadata.tool_calls}}},
      {"tools", std::move(tools)},
      {"previous_feedback", attempt.previous_feedback},
      {"messages", std::move(messages)},
  };
  // Invalid UTF-8 anywhere (model text, tool output) becomes U+FFFD instead of an exception.
  return out.dump(-1, ' ', false, json::error_handler_t::replace) + '\n';
}

} // namespace ralph::verify
