#include "agent/claude_stream.h"

#include "agent/cli_json_line.h"

#include "ralph/core/json.h"
#include "ralph/core/saturating.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::agent {
namespace {

using nlohmann::json;

const json& content_of(const json& line) {
  static const json k_none;
  const json* message = member(line, "message");
  const json* content = message == nullptr ? nullptr : member(*message, "content");
  return content == nullptr ? k_none : *content;
}

Usage result_usage(const json& usage) {
  const std::int64_t input = int_member(usage, "input_tokens").value_or(0);
  const std::int64_t cache_read = int_member(usage, "cache_read_input_tokens").value_or(0);
  const std::int64_t cache_write = int_member(usage, "cache_creation_input_tokens").value_or(0);
  // Anthropic counts cached prompt parts apart from input_tokens; ralph's input is the whole
  // prompt.
  return Usage{.input_tokens = saturating_add(saturating_add(input, cache_read), cache_write),
               .output_tokens = int_member(usage, "output_tokens").value_or(0),
               .cache_read_tokens = cache_read,
               .cache_write_tokens = cache_write};
}

std::optional<double> result_cost(const json& line) {
  // Renamed twice: total_cost_usd now, total_cost before 1.0.22, cost_usd before that.
  for (const char* key : {"total_cost_usd", "total_cost", "cost_usd"}) {
    if (auto cost = number_member(line, key)) {
      return cost;
    }
  }
  return std::nullopt;
}

std::string result_error(const json& line) {
  std::string error(string_member(line, "result"));
  if (error.empty()) {
    if (const json* errors = member(line, "errors"); errors != nullptr && errors->is_array()) {
      for (const json& item : *errors) {
        if (item.is_string()) {
          error += error.empty() ? "" : "; ";
          error += item.get_ref<const std::string&>();
        }
      }
    }
  }
  if (error.empty()) {
    error = fmt::format("claude ended with {}", string_member(line, "subtype"));
  }
  if (auto status = int_member(line, "api_error_status")) {
    error += fmt::format(" (API HTTP status {})", *status);
  }
  return error;
}

} // namespace

void ClaudeStream::parse_line(std::string_view line, std::vector<CliEvent>& out) {
  const auto value = cli_json_line(line);
  if (!value) {
    return;
  }
  const std::string_view type = string_member(*value, "type");
  if (type == "system") {
    if (string_member(*value, "subtype") == "init") {
      out.emplace_back(CliSession{.id = std::string(string_member(*value, "session_id")),
                                  .model = std::string(string_member(*value, "model"))});
    }
  } else if (type == "assistant") {
    on_assistant(*value, out);
  } else if (type == "user") {
    on_user(*value, out);
  } else if (type == "result") {
    on_result(*value, out);
  }
}

void ClaudeStream::finish(std::vector<CliEvent>& /*out*/) {}

void ClaudeStream::on_assistant(const json& line, std::vector<CliEvent>& out) {
  const json* parent = member(line, "parent_tool_use_id");
  const bool subagent = parent != nullptr && !parent->is_null();
  if (const std::string_view error = string_member(line, "error"); !error.empty()) {
    out.emplace_back(CliNotice{.text = fmt::format("claude: assistant message error: {}", error)});
  }
  const json& content = content_of(line);
  if (!content.is_array()) {
    return;
  }
  for (const json& block : content) {
    const std::string_view type = string_member(block, "type");
    if (type == "text" && !subagent) {
      const std::string_view text = string_member(block, "text");
      if (!text.empty()) {
        out.emplace_back(CliText{.text = std::string(text), .delta = false});
      }
    } else if (type == "tool_use") {
      const json* input = member(block, "input");
      m_calls.start(ToolCall{.id = std::string(string_member(block, "id")),
                             .name = std::string(string_member(block, "name")),
                             .arguments = input == nullptr ? "{}" : json_text(*input)},
                    out);
    }
  }
}

void ClaudeStream::on_user(const json& line, std::vector<CliEvent>& out) {
  const json& content = content_of(line);
  if (!content.is_array()) {
    return; // a plain-string user message is a prompt, not a tool result
  }
  for (const json& block : content) {
    const std::string id(string_member(block, "tool_use_id"));
    if (string_member(block, "type") != "tool_result" || id.empty()) {
      continue;
    }
    const json* result = member(block, "content");
    m_calls.finish(id, ToolCall{.id = id, .name = {}, .arguments = "{}"},
                   result == nullptr ? std::string() : content_text(*result),
                   bool_member(block, "is_error", false), std::nullopt, out);
  }
}

void ClaudeStream::on_result(const json& line, std::vector<CliEvent>& out) {
  const json* usage = member(line, "usage");
  auto cost = result_cost(line);
  if ((usage != nullptr && usage->is_object()) || cost) {
    out.emplace_back(CliUsage{.usage = usage == nullptr ? Usage{} : result_usage(*usage),
                              .cost_usd = cost,
                              .thread_total = false});
  }
  // API failures come as subtype "success" with is_error true: is_error decides.
  const bool ok = !bool_member(line, "is_error", string_member(line, "subtype") != "success");
  if (ok) {
    out.emplace_back(
        CliResult{.ok = true, .answer = std::string(string_member(line, "result")), .error = {}});
    return;
  }
  out.emplace_back(CliResult{.ok = false, .answer = {}, .error = result_error(line)});
}

} // namespace ralph::agent
