#include "agent/claude_stream.h"

#include "agent/cli_json_line.h"

#include "ralph/core/json.h"
#include "ralph/core/quantity.h"
#include "ralph/core/saturating.h"
#include "ralph/core/text.h"

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

// N when `line` is "Exit code N".
std::optional<int> exit_code_line(std::string_view line) {
  constexpr std::string_view k_prefix = "Exit code ";
  line = trim(line);
  if (!line.starts_with(k_prefix)) {
    return std::nullopt;
  }
  return parse_int(line.substr(k_prefix.size()));
}

// The "Exit code N" line Claude Code puts first in a failed command's result (the last line is
// read too, should a build move it there); a line in the middle is the command's own output.
std::optional<int> failed_exit_code(std::string_view text) {
  text = trim(text);
  const std::size_t last = text.rfind('\n');
  if (auto code = exit_code_line(last == std::string_view::npos ? text : text.substr(last + 1))) {
    return code;
  }
  return exit_code_line(text.substr(0, text.find('\n')));
}

// The exit code of a Bash result, which Claude Code gives no field for but implies. Seen driving
// the real CLI (2.1.330, tests/agent_clis) and read from its code: a command's result is an error
// exactly when its exit code is not 0, and then its text starts with the line "Exit code N"
// (tool_use_result is then the string "Error: Exit code N…"); the one exception is exit code 1 of
// grep, rg, find, diff, test and `[` (and git grep/diff), which is no error but comes with
// tool_use_result.returnCodeInterpretation ("No matches found", ...). A result that is no error
// exited 0 when its tool_use_result is the Bash shape (stdout, `interrupted`) and the command was
// neither interrupted nor sent to the background.
std::optional<int> bash_exit_code(const json& line, bool is_error, std::string_view text) {
  if (is_error) {
    return failed_exit_code(text);
  }
  const json* result = member(line, "tool_use_result");
  if (result == nullptr || !result->is_object() || member(*result, "stdout") == nullptr ||
      member(*result, "interrupted") == nullptr || bool_member(*result, "interrupted", true) ||
      member(*result, "backgroundTaskId") != nullptr) {
    return std::nullopt;
  }
  return string_member(*result, "returnCodeInterpretation").empty() ? 0 : 1;
}

// When a plan's usage limit resets, from a rate_limit_info object that says it was hit.
std::optional<std::chrono::system_clock::time_point> rejected_until(const json* info) {
  if (info == nullptr || string_member(*info, "status") != "rejected") {
    return std::nullopt;
  }
  const auto seconds = int_member(*info, "resetsAt");
  if (!seconds || *seconds <= 0) {
    return std::nullopt;
  }
  return std::chrono::system_clock::time_point(std::chrono::seconds(*seconds));
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
  } else if (type == "rate_limit_event") {
    if (auto until = rejected_until(member(*value, "rate_limit_info"))) {
      m_limit_resets_at = until;
    }
  }
}

void ClaudeStream::finish(std::vector<CliEvent>& /*out*/) {}

void ClaudeStream::on_assistant(const json& line, std::vector<CliEvent>& out) {
  const json* parent = member(line, "parent_tool_use_id");
  const bool subagent = parent != nullptr && !parent->is_null();
  if (const std::string_view error = string_member(line, "error"); !error.empty()) {
    out.emplace_back(CliNotice{.text = fmt::format("claude: assistant message error: {}", error)});
  }
  if (const json* params = member(line, "api_error_params"); params != nullptr) {
    if (auto until = rejected_until(member(*params, "rate_limit_info"))) {
      m_limit_resets_at = until;
    }
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
    std::string text = result == nullptr ? std::string() : content_text(*result);
    const bool is_error = bool_member(block, "is_error", false);
    const ToolCall* call = m_calls.find(id);
    const std::optional<int> exit_code = call != nullptr && call->name == "Bash"
                                             ? bash_exit_code(line, is_error, text)
                                             : std::nullopt;
    m_calls.finish(id, ToolCall{.id = id, .name = {}, .arguments = "{}"}, std::move(text), is_error,
                   exit_code, out);
  }
}

void ClaudeStream::on_result(const json& line, std::vector<CliEvent>& out) const {
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
  // A plan's usage limit (seen driving Claude Code 2.1.330 against a server answering 429 with
  // anthropic-ratelimit-unified-status: rejected): a rate_limit_event whose rate_limit_info is
  // {status:"rejected", resetsAt: epoch seconds}, an assistant line with the same info in
  // api_error_params, and this result with api_error "usage_limit_reached" and the words
  // "You've hit your 5-hour limit · resets 5:43am (UTC)".
  const bool limited = string_member(line, "api_error") == "usage_limit_reached";
  out.emplace_back(CliResult{.ok = false,
                             .answer = {},
                             .error = result_error(line),
                             .usage_limit = limited,
                             .resets_at = limited ? m_limit_resets_at : std::nullopt});
}

} // namespace ralph::agent
