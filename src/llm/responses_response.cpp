#include "llm/responses_response.h"

#include "llm/body_reader.h"
#include "llm/openai_response.h"
#include "llm/provider_error.h"

#include "ralph/core/json.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace ralph::llm {
namespace {

Usage responses_usage(const nlohmann::json& usage) {
  Usage out;
  out.input_tokens = int_member(usage, "input_tokens").value_or(0);
  out.output_tokens = int_member(usage, "output_tokens").value_or(0);
  if (const nlohmann::json* details = member(usage, "input_tokens_details")) {
    out.cache_read_tokens = int_member(*details, "cached_tokens").value_or(0);
  }
  return out;
}

// The texts of the parts of `list` (an array member of `item`) whose type is `type`, read from
// their member `field`.
std::string joined_parts(const nlohmann::json& item, const char* list, std::string_view type,
                         const char* field) {
  std::string out;
  const nlohmann::json* parts = member(item, list);
  if (parts == nullptr || !parts->is_array()) {
    return out;
  }
  for (const nlohmann::json& part : *parts) {
    if (string_member(part, "type") == type) {
      out.append(string_member(part, field));
    }
  }
  return out;
}

struct Output {
  bool refused = false;
};

Output read_items(const nlohmann::json& items, ChatResponse& out) {
  Output output;
  if (!items.is_array()) {
    return output;
  }
  for (const nlohmann::json& item : items) {
    const std::string_view type = string_member(item, "type");
    if (type == "message") {
      out.message.content.append(joined_parts(item, "content", "output_text", "text"));
      const std::string refusal = joined_parts(item, "content", "refusal", "refusal");
      if (!refusal.empty()) {
        output.refused = true;
        out.message.content.append(refusal);
      }
    } else if (type == "function_call") {
      ToolCall call;
      call.id = string_member(item, "call_id");
      call.name = string_member(item, "name");
      call.arguments = string_member(item, "arguments");
      out.message.tool_calls.push_back(std::move(call));
    } else if (type == "reasoning") {
      // A summary when asked for one; open-weight servers send the raw text as content instead.
      std::string thinking = joined_parts(item, "summary", "summary_text", "text");
      if (thinking.empty()) {
        thinking = joined_parts(item, "content", "reasoning_text", "text");
      }
      if (!thinking.empty()) {
        out.message.thinking.push_back(ThinkingBlock{.thinking = std::move(thinking)});
      }
    }
  }
  return output;
}

// A status as it may be shown: a short identifier ("cancelled", "queued"), else a placeholder, so
// whatever a server puts there (a key, newlines, megabytes) never reaches a message.
std::string_view shown_status(std::string_view status) {
  constexpr std::size_t k_max_status_bytes = 32;
  const bool plain = !status.empty() && status.size() <= k_max_status_bytes &&
                     std::all_of(status.begin(), status.end(), [](char c) {
                       return std::islower(static_cast<unsigned char>(c)) != 0 || c == '_';
                     });
  return plain ? status : std::string_view("(not a status name)");
}

Error failed_error(std::string_view provider, std::string_view secret,
                   const nlohmann::json& response) {
  const nlohmann::json* error = member(response, "error");
  if (error != nullptr && error->is_object()) {
    return payload_error(provider, response, secret);
  }
  return Error{.kind = ErrorKind::provider,
               .message = fmt::format("{}: response failed without saying why", provider)};
}

} // namespace

Result<ChatResponse> read_responses_object(std::string_view provider, std::string_view secret,
                                           const nlohmann::json& response) {
  if (!response.is_object()) {
    return fail(ErrorKind::parse, fmt::format("{}: the response is not a JSON object", provider));
  }
  const std::string_view status = string_member(response, "status");
  if (status == "failed") {
    return fail(failed_error(provider, secret, response));
  }
  const nlohmann::json* error = member(response, "error");
  if (error != nullptr && !error->is_null()) {
    return fail(payload_error(provider, response, secret));
  }
  // Gateways that report no status mean a finished answer.
  if (!status.empty() && status != "completed" && status != "incomplete") {
    return fail(ErrorKind::provider,
                fmt::format("{}: response ended with status '{}'", provider, shown_status(status)));
  }

  ChatResponse out;
  out.message.role = Role::assistant;
  out.model = string_member(response, "model");
  Output output;
  if (const nlohmann::json* items = member(response, "output")) {
    output = read_items(*items, out);
  }
  complete_tool_calls(out.message.tool_calls);
  if (const nlohmann::json* usage = member(response, "usage")) {
    out.usage = responses_usage(*usage);
  }
  if (status == "incomplete") {
    const nlohmann::json* details = member(response, "incomplete_details");
    out.raw_stop_reason = details != nullptr ? string_member(*details, "reason") : "";
    out.stop_reason = out.raw_stop_reason == "max_output_tokens" ? StopReason::max_tokens
                      : out.raw_stop_reason == "content_filter"  ? StopReason::content_filter
                                                                 : StopReason::unknown;
    if (out.raw_stop_reason.empty()) {
      out.raw_stop_reason = "incomplete";
    }
    return out;
  }
  out.raw_stop_reason = "completed";
  out.stop_reason = output.refused                    ? StopReason::refusal
                    : !out.message.tool_calls.empty() ? StopReason::tool_use
                                                      : StopReason::end_turn;
  return out;
}

Result<ChatResponse> read_responses_body(std::string_view provider, std::string_view secret,
                                         const http::Response& response) {
  TRY_ASSIGN(const nlohmann::json body,
             parse_json(response.body, fmt::format("{}: response body", provider)));
  return read_responses_object(provider, secret, body);
}

} // namespace ralph::llm
