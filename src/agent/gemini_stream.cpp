#include "agent/gemini_stream.h"

#include "agent/cli_json_line.h"

#include "ralph/core/json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::agent {
namespace {

using nlohmann::json;

std::string error_message(const json& holder) {
  const json* error = member(holder, "error");
  if (error == nullptr) {
    return {};
  }
  if (error->is_string()) {
    return error->get<std::string>();
  }
  std::string message(string_member(*error, "message"));
  return message.empty() ? std::string(string_member(*error, "type")) : message;
}

} // namespace

void GeminiStream::parse_line(std::string_view line, std::vector<CliEvent>& out) {
  const auto value = cli_json_line(line);
  if (!value) {
    return;
  }
  const std::string_view type = string_member(*value, "type");
  if (type == "init") {
    out.emplace_back(CliSession{.id = std::string(string_member(*value, "session_id")),
                                .model = std::string(string_member(*value, "model"))});
  } else if (type == "message") {
    const std::string_view text = string_member(*value, "content");
    if (string_member(*value, "role") != "assistant" || text.empty()) {
      return;
    }
    m_answer += text;
    out.emplace_back(
        CliText{.text = std::string(text), .delta = bool_member(*value, "delta", false)});
  } else if (type == "tool_use") {
    const json* parameters = member(*value, "parameters");
    m_calls.start(ToolCall{.id = std::string(string_member(*value, "tool_id")),
                           .name = std::string(string_member(*value, "tool_name")),
                           .arguments = parameters == nullptr ? "{}" : json_text(*parameters)},
                  out);
    m_answer.clear();
  } else if (type == "tool_result") {
    const std::string id(string_member(*value, "tool_id"));
    const bool failed = string_member(*value, "status") == "error";
    std::string output(string_member(*value, "output"));
    if (const std::string error = error_message(*value); failed && !error.empty()) {
      output += output.empty() ? error : "\n" + error;
    }
    m_calls.finish(id, ToolCall{.id = id, .name = {}, .arguments = "{}"}, std::move(output), failed,
                   std::nullopt, out);
    m_answer.clear();
  } else if (type == "error") {
    const std::string_view severity = string_member(*value, "severity");
    const std::string_view message = string_member(*value, "message");
    out.emplace_back(CliNotice{.text = severity.empty()
                                           ? std::string(message)
                                           : fmt::format("{}: {}", severity, message)});
  } else if (type == "result") {
    on_result(*value, out);
  }
}

void GeminiStream::finish(std::vector<CliEvent>& /*out*/) {}

void GeminiStream::on_result(const json& line, std::vector<CliEvent>& out) {
  if (const json* stats = member(line, "stats"); stats != nullptr && stats->is_object()) {
    // input_tokens counts the cached part too (`input` is the uncached rest). Gemini has no cost.
    out.emplace_back(
        CliUsage{.usage = Usage{.input_tokens = int_member(*stats, "input_tokens").value_or(0),
                                .output_tokens = int_member(*stats, "output_tokens").value_or(0),
                                .cache_read_tokens = int_member(*stats, "cached").value_or(0)},
                 .cost_usd = std::nullopt,
                 .thread_total = false});
  }
  if (string_member(line, "status") == "success") {
    out.emplace_back(CliResult{.ok = true, .answer = m_answer, .error = {}});
    return;
  }
  std::string error = error_message(line);
  if (error.empty()) {
    error = fmt::format("gemini ended with status \"{}\"", string_member(line, "status"));
  }
  out.emplace_back(CliResult{.ok = false, .answer = {}, .error = std::move(error)});
}

} // namespace ralph::agent
