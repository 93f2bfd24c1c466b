#include "agent/goose_stream.h"

#include "agent/cli_json_line.h"

#include "ralph/core/json.h"

#include <nlohmann/json.hpp>

namespace ralph::agent {
namespace {

using nlohmann::json;

ToolCall requested_call(const json& content) {
  ToolCall call{.id = std::string(string_member(content, "id")), .name = {}, .arguments = "{}"};
  const json* tool_call = member(content, "toolCall");
  const json* value = tool_call == nullptr ? nullptr : member(*tool_call, "value");
  if (value == nullptr) {
    return call; // the model's call did not parse; goose answers it with an error result
  }
  call.name = string_member(*value, "name");
  if (const json* arguments = member(*value, "arguments"); arguments != nullptr) {
    call.arguments = json_text(*arguments);
  }
  return call;
}

struct ToolOutcome {
  std::string output;
  bool is_error = false;
};

// {"status":"success","value":[MCP content…]} or {"status":"success","value":{content,isError}}
// or {"status":"error","error":"-32603: …"}.
ToolOutcome tool_outcome(const json& content) {
  const json* result = member(content, "toolResult");
  if (result == nullptr) {
    return {.output = {}, .is_error = true};
  }
  if (string_member(*result, "status") == "error") {
    return {.output = std::string(string_member(*result, "error")), .is_error = true};
  }
  const json* value = member(*result, "value");
  if (value == nullptr) {
    return {};
  }
  if (value->is_array()) {
    return {.output = content_text(*value), .is_error = false};
  }
  const json* inner = member(*value, "content");
  return {.output = inner == nullptr ? std::string() : content_text(*inner),
          .is_error = bool_member(*value, "isError", false)};
}

} // namespace

void GooseStream::parse_line(std::string_view line, std::vector<CliEvent>& out) {
  const auto value = cli_json_line(line);
  if (!value) {
    return;
  }
  const std::string_view type = string_member(*value, "type");
  if (type == "message") {
    if (const json* message = member(*value, "message"); message != nullptr) {
      on_message(*message, out);
    }
  } else if (type == "error") {
    const json* error = member(*value, "error");
    m_error = error != nullptr && error->is_string() ? error->get<std::string>()
                                                     : "goose reported an error";
    m_failed = true;
    out.emplace_back(CliNotice{.text = m_error});
  } else if (type == "complete") {
    on_complete(*value, out);
  }
}

void GooseStream::finish(std::vector<CliEvent>& /*out*/) {}

void GooseStream::on_message(const json& message, std::vector<CliEvent>& out) {
  const json* content = member(message, "content");
  if (content == nullptr || !content->is_array()) {
    return;
  }
  const std::string_view role = string_member(message, "role");
  for (const json& item : *content) {
    const std::string_view type = string_member(item, "type");
    if (role == "assistant" && type == "text") {
      const std::string_view text = string_member(item, "text");
      if (!text.empty()) {
        m_answer += text;
        out.emplace_back(CliText{.text = std::string(text), .delta = true});
      }
    } else if (role == "assistant" && type == "toolRequest") {
      m_calls.start(requested_call(item), out);
      m_answer.clear();
    } else if (role == "user" && type == "toolResponse") {
      const std::string id(string_member(item, "id"));
      ToolOutcome outcome = tool_outcome(item);
      m_calls.finish(id, ToolCall{.id = id, .name = {}, .arguments = "{}"},
                     std::move(outcome.output), outcome.is_error, std::nullopt, out);
      m_answer.clear();
    }
  }
}

void GooseStream::on_complete(const json& line, std::vector<CliEvent>& out) {
  if (auto total = int_member(line, "total_tokens")) {
    out.emplace_back(CliUsage{
        .usage = Usage{.input_tokens = *total}, .cost_usd = std::nullopt, .thread_total = false});
  }
  if (m_failed) {
    out.emplace_back(CliResult{.ok = false, .answer = {}, .error = m_error});
    return;
  }
  out.emplace_back(CliResult{.ok = true, .answer = m_answer, .error = {}});
}

} // namespace ralph::agent
