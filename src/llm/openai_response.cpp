#include "llm/openai_response.h"

#include "llm/body_reader.h"
#include "llm/json_fields.h"
#include "llm/provider_error.h"

#include "ralph/core/json.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::llm {

StopReason openai_stop_reason(std::string_view finish_reason) {
  if (finish_reason == "stop") {
    return StopReason::end_turn;
  }
  if (finish_reason == "tool_calls" || finish_reason == "function_call") {
    return StopReason::tool_use;
  }
  if (finish_reason == "length") {
    return StopReason::max_tokens;
  }
  if (finish_reason == "content_filter") {
    return StopReason::content_filter;
  }
  return StopReason::unknown;
}

Usage openai_usage(const nlohmann::json& usage) {
  Usage out;
  out.input_tokens = int_member(usage, "prompt_tokens").value_or(0);
  out.output_tokens = int_member(usage, "completion_tokens").value_or(0);
  if (const nlohmann::json* details = member(usage, "prompt_tokens_details")) {
    out.cache_read_tokens = int_member(*details, "cached_tokens").value_or(0);
  }
  return out;
}

void complete_tool_calls(std::vector<ToolCall>& calls) {
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (calls[i].id.empty()) {
      calls[i].id = fmt::format("call_{}", i + 1);
    }
    calls[i].arguments = arguments_or_empty_object(std::move(calls[i].arguments));
  }
}

Result<ChatResponse> read_openai_body(std::string_view provider, std::string_view secret,
                                      const http::Response& response) {
  TRY_ASSIGN(const nlohmann::json body,
             parse_json(response.body, fmt::format("{}: response body", provider)));
  const nlohmann::json* error = member(body, "error");
  if (error != nullptr && !error->is_null()) {
    return fail(payload_error(provider, body, secret));
  }
  const nlohmann::json* choices = member(body, "choices");
  if (choices == nullptr || !choices->is_array() || choices->empty()) {
    return fail(ErrorKind::parse, fmt::format("{}: response has no choices", provider));
  }
  const nlohmann::json& choice = choices->front();
  const nlohmann::json* message = member(choice, "message");
  if (message == nullptr || !message->is_object()) {
    return fail(ErrorKind::parse, fmt::format("{}: response choice has no message", provider));
  }

  ChatResponse out;
  out.message.role = Role::assistant;
  out.model = string_member(body, "model");
  out.message.content = string_member(*message, "content");
  std::string_view reasoning = string_member(*message, "reasoning_content");
  if (reasoning.empty()) {
    reasoning = string_member(*message, "reasoning");
  }
  if (!reasoning.empty()) {
    out.message.thinking.push_back(ThinkingBlock{.thinking = std::string(reasoning)});
  }
  if (const nlohmann::json* calls = member(*message, "tool_calls"); calls && calls->is_array()) {
    for (const nlohmann::json& call : *calls) {
      ToolCall tool_call;
      tool_call.id = string_member(call, "id");
      if (const nlohmann::json* function = member(call, "function")) {
        tool_call.name = string_member(*function, "name");
        const nlohmann::json* arguments = member(*function, "arguments");
        if (arguments != nullptr && arguments->is_string()) {
          tool_call.arguments = arguments->get<std::string>();
        } else if (arguments != nullptr && !arguments->is_null()) {
          tool_call.arguments = arguments->dump(); // some servers send an object
        }
      }
      out.message.tool_calls.push_back(std::move(tool_call));
    }
  }
  complete_tool_calls(out.message.tool_calls);
  out.raw_stop_reason = string_member(choice, "finish_reason");
  out.stop_reason = openai_stop_reason(out.raw_stop_reason);
  if (const nlohmann::json* usage = member(body, "usage")) {
    out.usage = openai_usage(*usage);
  }
  return out;
}

} // namespace ralph::llm
