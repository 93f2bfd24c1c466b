#include "agent/codex_stream.h"

#include "agent/cli_json_line.h"

#include "ralph/core/json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::agent {
namespace {

using nlohmann::json;

std::string_view item_kind(const json& item) {
  const std::string_view type = string_member(item, "type");
  return type.empty() ? string_member(item, "item_type") : type;
}

bool status_failed(const json& item) {
  const std::string_view status = string_member(item, "status");
  return status == "failed" || status == "declined";
}

ToolCall shell_call(const json& item) {
  return ToolCall{.id = std::string(string_member(item, "id")),
                  .name = "shell",
                  .arguments = json_text(json{{"command", string_member(item, "command")}})};
}

ToolCall file_change_call(const json& item) {
  const json* changes = member(item, "changes");
  return ToolCall{.id = std::string(string_member(item, "id")),
                  .name = "file_change",
                  .arguments =
                      json_text(json{{"changes", changes == nullptr ? json::array() : *changes}})};
}

// One line per change, "update /w/repo/src/parse.cc": what a reader of the tool's output wants.
std::string file_change_output(const json& item) {
  std::string output;
  const json* changes = member(item, "changes");
  if (changes == nullptr || !changes->is_array()) {
    return output;
  }
  for (const json& change : *changes) {
    output += fmt::format("{}{} {}", output.empty() ? "" : "\n", string_member(change, "kind"),
                          string_member(change, "path"));
  }
  return output;
}

ToolCall mcp_call(const json& item) {
  const json* arguments = member(item, "arguments");
  std::string text = "{}";
  if (arguments != nullptr && arguments->is_string()) {
    text = arguments->get<std::string>();
  } else if (arguments != nullptr && !arguments->is_null()) {
    text = json_text(*arguments);
  }
  return ToolCall{
      .id = std::string(string_member(item, "id")),
      .name = fmt::format("{}__{}", string_member(item, "server"), string_member(item, "tool")),
      .arguments = std::move(text)};
}

} // namespace

void CodexStream::parse_line(std::string_view line, std::vector<CliEvent>& out) {
  const auto value = cli_json_line(line);
  if (!value) {
    return;
  }
  const std::string_view type = string_member(*value, "type");
  if (type == "thread.started") {
    out.emplace_back(
        CliSession{.id = std::string(string_member(*value, "thread_id")), .model = {}});
  } else if (type == "item.started" || type == "item.completed") {
    if (const json* item = member(*value, "item"); item != nullptr && item->is_object()) {
      on_item(*item, type == "item.completed", out);
    }
  } else if (type == "error") {
    out.emplace_back(CliNotice{.text = std::string(string_member(*value, "message"))});
  } else if (type == "turn.completed") {
    const json* usage = member(*value, "usage");
    if (usage != nullptr && usage->is_object()) {
      // input_tokens includes the cached part already, as ralph counts it.
      out.emplace_back(
          CliUsage{.usage = Usage{.input_tokens = int_member(*usage, "input_tokens").value_or(0),
                                  .output_tokens = int_member(*usage, "output_tokens").value_or(0),
                                  .cache_read_tokens =
                                      int_member(*usage, "cached_input_tokens").value_or(0)},
                   .cost_usd = std::nullopt,
                   .thread_total = true});
    }
    out.emplace_back(CliResult{.ok = true, .answer = m_answer, .error = {}});
  } else if (type == "turn.failed") {
    const json* error = member(*value, "error");
    std::string message(error == nullptr ? "" : string_member(*error, "message"));
    out.emplace_back(CliResult{
        .ok = false, .answer = {}, .error = message.empty() ? "codex: the turn failed" : message});
  }
}

void CodexStream::finish(std::vector<CliEvent>& /*out*/) {}

void CodexStream::on_item(const json& item, bool completed, std::vector<CliEvent>& out) {
  const std::string_view kind = item_kind(item);
  const std::string id(string_member(item, "id"));
  if (kind == "agent_message" || kind == "assistant_message") {
    if (completed && !string_member(item, "text").empty()) {
      m_answer = string_member(item, "text");
      out.emplace_back(CliText{.text = m_answer, .delta = false});
    }
  } else if (kind == "error") {
    if (completed) {
      out.emplace_back(CliNotice{.text = std::string(string_member(item, "message"))});
    }
  } else if (kind == "command_execution") {
    if (!completed) {
      m_calls.start(shell_call(item), out);
      return;
    }
    const auto exit_code = exit_code_member(item, "exit_code");
    m_calls.finish(id, shell_call(item), std::string(string_member(item, "aggregated_output")),
                   status_failed(item) || (exit_code && *exit_code != 0), exit_code, out);
  } else if (kind == "file_change") {
    if (!completed) {
      m_calls.start(file_change_call(item), out);
      return;
    }
    m_calls.finish(id, file_change_call(item), file_change_output(item), status_failed(item),
                   std::nullopt, out);
  } else if (kind == "mcp_tool_call") {
    if (!completed) {
      m_calls.start(mcp_call(item), out);
      return;
    }
    const json* error = member(item, "error");
    const json* result = member(item, "result");
    std::string output;
    if (error != nullptr && error->is_object()) {
      output = string_member(*error, "message");
    } else if (const json* content = result == nullptr ? nullptr : member(*result, "content")) {
      output = content_text(*content);
    }
    const bool failed = status_failed(item) || (error != nullptr && error->is_object());
    m_calls.finish(id, mcp_call(item), std::move(output), failed, std::nullopt, out);
  }
}

} // namespace ralph::agent
