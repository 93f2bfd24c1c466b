#include "agent/codex_stream.h"

#include "agent/cli_json_line.h"

#include "ralph/core/json.h"
#include "ralph/core/text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <ctime>
#include <optional>
#include <utility>
#include <vector>

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

using std::chrono::system_clock;

// "5:44 AM" as hours since midnight and minutes; nullopt for anything else.
std::optional<std::pair<int, int>> clock_time(std::string_view time, std::string_view half) {
  const std::size_t colon = time.find(':');
  int hour = 0;
  int minute = 0;
  if (colon == std::string_view::npos ||
      std::from_chars(time.data(), time.data() + colon, hour).ptr != time.data() + colon ||
      std::from_chars(time.data() + colon + 1, time.data() + time.size(), minute).ptr !=
          time.data() + time.size() ||
      hour < 1 || hour > 12 || minute < 0 || minute > 59 || (half != "AM" && half != "PM")) {
    return std::nullopt;
  }
  return std::pair{hour % 12 + (half == "PM" ? 12 : 0), minute};
}

// The leading number of "29th," or "2026".
std::optional<int> leading_number(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) {
    return std::nullopt;
  }
  return value;
}

// When Codex's usage limit resets, from the words of its UsageLimitReachedError (codex-rs, 0.169.0,
// seen driving the real CLI against a server answering 429 {"error":{"type":
// "usage_limit_reached","resets_at":…}}): "You’ve hit your usage limit. … try again at 5:44 AM."
// on the day of the reset, else "… try again at Nov 29th, 2026 8:44 AM.", in the local time of
// the codex process (which runs in ralph's environment, so in ralph's time zone).
std::optional<system_clock::time_point> codex_reset_time(std::string_view message,
                                                         system_clock::time_point now) {
  // "Try again at" alone, "or try again at" after a plan's words.
  constexpr std::string_view k_at = "again at ";
  const std::size_t at = message.find(k_at);
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view when = trim(message.substr(at + k_at.size()));
  if (!when.empty() && when.back() == '.') {
    when.remove_suffix(1);
  }
  std::vector<std::string_view> words;
  for (std::size_t start = 0; start < when.size();) {
    const std::size_t space = std::min(when.find(' ', start), when.size());
    words.push_back(when.substr(start, space - start));
    start = space + 1;
  }
  std::tm local{};
  const std::time_t now_t = system_clock::to_time_t(now);
  localtime_r(&now_t, &local);
  if (words.size() == 5) {
    constexpr std::array<std::string_view, 12> k_months = {
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    const auto month = std::find(k_months.begin(), k_months.end(), words[0]);
    const auto day = leading_number(words[1]);
    const auto year = leading_number(words[2]);
    if (month == k_months.end() || !day || !year || *day < 1 || *day > 31) {
      return std::nullopt;
    }
    local.tm_mon = static_cast<int>(month - k_months.begin());
    local.tm_mday = *day;
    local.tm_year = *year - 1900;
    words.erase(words.begin(), words.begin() + 3);
  }
  if (words.size() != 2) {
    return std::nullopt;
  }
  const auto time = clock_time(words[0], words[1]);
  if (!time) {
    return std::nullopt;
  }
  local.tm_hour = time->first;
  local.tm_min = time->second;
  local.tm_sec = 0;
  local.tm_isdst = -1; // the local rules decide
  const std::time_t reset = std::mktime(&local);
  if (reset == static_cast<std::time_t>(-1)) {
    return std::nullopt;
  }
  return system_clock::from_time_t(reset);
}

// Codex's words for a plan's usage limit (the apostrophe is typographic in 0.169.0).
bool is_usage_limit(std::string_view message) {
  return message.find("hit your usage limit") != std::string_view::npos;
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
    const bool limited = is_usage_limit(message);
    const auto resets_at = limited ? codex_reset_time(message, system_clock::now()) : std::nullopt;
    out.emplace_back(CliResult{.ok = false,
                               .answer = {},
                               .error = message.empty() ? "codex: the turn failed" : message,
                               .usage_limit = limited,
                               .resets_at = resets_at});
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
