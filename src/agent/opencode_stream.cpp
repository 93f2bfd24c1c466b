#include "agent/opencode_stream.h"

#include "agent/cli_json_line.h"

#include "ralph/core/json.h"
#include "ralph/core/saturating.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::agent {
namespace {

using nlohmann::json;

// v1 {name, data:{message}}, v2 {type, message}; either as "<name>: <message>".
std::string error_text(const json& error) {
  if (error.is_string()) {
    return error.get<std::string>();
  }
  std::string_view name = string_member(error, "name");
  if (name.empty()) {
    name = string_member(error, "type");
  }
  std::string_view message = string_member(error, "message");
  if (const json* data = member(error, "data"); message.empty() && data != nullptr) {
    message = string_member(*data, "message");
  }
  if (name.empty()) {
    return message.empty() ? "opencode reported an error" : std::string(message);
  }
  return message.empty() ? std::string(name) : fmt::format("{}: {}", name, message);
}

std::optional<int> bash_exit(const json& state) {
  const json* metadata = member(state, "metadata");
  if (metadata == nullptr) {
    return std::nullopt;
  }
  if (auto code = exit_code_member(*metadata, "exit")) {
    return code; // v1
  }
  const json* nested = member(*metadata, "metadata");
  return nested == nullptr ? std::nullopt : exit_code_member(*nested, "exit"); // v2
}

} // namespace

void OpencodeStream::parse_line(std::string_view line, std::vector<CliEvent>& out) {
  const auto value = cli_json_line(line);
  if (!value) {
    return;
  }
  if (const std::string_view session = string_member(*value, "sessionID");
      !m_session_seen && !session.empty()) {
    m_session_seen = true;
    out.emplace_back(CliSession{.id = std::string(session), .model = {}});
  }
  const std::string_view type = string_member(*value, "type");
  const json* part = member(*value, "part");
  if (type == "text" && part != nullptr) {
    const std::string_view text = string_member(*part, "text");
    if (!text.empty()) {
      m_answer = text;
      out.emplace_back(CliText{.text = m_answer, .delta = false});
    }
  } else if (type == "tool_use" && part != nullptr) {
    on_tool(*part, out);
  } else if (type == "step_finish" && part != nullptr) {
    on_step_finish(*part, out);
  } else if (type == "error" && !m_ended) {
    const json* error = member(*value, "error");
    m_ended = true;
    out.emplace_back(
        CliResult{.ok = false,
                  .answer = {},
                  .error = error == nullptr ? "opencode reported an error" : error_text(*error)});
  } else if (type == "done" && !m_ended) {
    m_ended = true;
    out.emplace_back(CliResult{.ok = true, .answer = m_answer, .error = {}});
  }
}

void OpencodeStream::finish(std::vector<CliEvent>& out) {
  // The AI SDK's reason is "stop"; "end_turn"/"end-turn" are the provider spellings a v2 build
  // may pass through.
  const bool turn_ended =
      m_last_reason == "stop" || m_last_reason == "end_turn" || m_last_reason == "end-turn";
  if (!m_ended && turn_ended) {
    m_ended = true;
    out.emplace_back(CliResult{.ok = true, .answer = m_answer, .error = {}});
  }
}

void OpencodeStream::on_tool(const json& part, std::vector<CliEvent>& out) const {
  const json* state = member(part, "state");
  if (state == nullptr) {
    return;
  }
  const std::string_view status = string_member(*state, "status");
  if (status != "completed" && status != "error") {
    return;
  }
  std::string id(string_member(part, "callID"));
  if (id.empty()) {
    id = string_member(part, "id");
  }
  const json* input = member(*state, "input");
  const auto exit_code = bash_exit(*state);
  const bool failed = status == "error";
  out.emplace_back(
      CliToolFinished{.call = ToolCall{.id = std::move(id),
                                       .name = std::string(string_member(part, "tool")),
                                       .arguments = input == nullptr ? "{}" : json_text(*input)},
                      .output = std::string(string_member(*state, failed ? "error" : "output")),
                      .is_error = failed || (exit_code && *exit_code != 0),
                      .exit_code = exit_code});
}

void OpencodeStream::on_step_finish(const json& part, std::vector<CliEvent>& out) {
  m_last_reason = string_member(part, "reason");
  if (auto cost = number_member(part, "cost")) {
    m_cost += *cost;
    m_costed = true;
  }
  if (const json* tokens = member(part, "tokens"); tokens != nullptr) {
    const json* cache = member(*tokens, "cache");
    const std::int64_t read = cache == nullptr ? 0 : int_member(*cache, "read").value_or(0);
    const std::int64_t write = cache == nullptr ? 0 : int_member(*cache, "write").value_or(0);
    // opencode's `input` leaves out the cached parts and `output` the reasoning; ralph's input is
    // the whole prompt and reasoning is billed as output.
    m_usage += Usage{.input_tokens = saturating_add(
                         saturating_add(int_member(*tokens, "input").value_or(0), read), write),
                     .output_tokens = saturating_add(int_member(*tokens, "output").value_or(0),
                                                     int_member(*tokens, "reasoning").value_or(0)),
                     .cache_read_tokens = read,
                     .cache_write_tokens = write};
  }
  out.emplace_back(CliUsage{.usage = m_usage,
                            .cost_usd = m_costed ? std::optional<double>(m_cost) : std::nullopt,
                            .thread_total = false});
}

} // namespace ralph::agent
