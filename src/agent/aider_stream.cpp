#include "agent/aider_stream.h"

#include "ralph/core/saturating.h"
#include "ralph/core/text.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

namespace ralph::agent {
namespace {

// The lines aider's get_announcements() prints before the model answers: a prefix and, where a
// model's first line could begin the same way, a part that must follow it.
struct Announcement {
  std::string_view prefix;
  std::string_view also;
};
constexpr std::array k_announcements{Announcement{"Aider v", ""},
                                     Announcement{"Model: ", " edit format"},
                                     Announcement{"Main model: ", " edit format"},
                                     Announcement{"Editor model: ", " edit format"},
                                     Announcement{"Weak model: ", ""},
                                     Announcement{"Git repo: ", ""},
                                     Announcement{"Repo-map: ", ""},
                                     Announcement{"Added ", " to the chat"},
                                     Announcement{"Restored previous conversation history.", ""},
                                     Announcement{"Warning: For large repos", ""},
                                     Announcement{"Warning: map-tokens > ", ""},
                                     Announcement{"See: https://aider.chat", ""}};

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool is_announcement(std::string_view line) {
  for (const Announcement& announcement : k_announcements) {
    if (starts_with(line, announcement.prefix) &&
        line.find(announcement.also, announcement.prefix.size()) != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

// "Commit 1a2b3c4 fix: …" as aider's repo.py prints each auto-commit.
bool is_commit_line(std::string_view line) {
  if (!starts_with(line, "Commit ")) {
    return false;
  }
  const std::string_view rest = line.substr(7);
  const std::size_t end = rest.find(' ');
  const std::string_view hash = rest.substr(0, end);
  if (hash.size() < 7) {
    return false;
  }
  for (const char c : hash) {
    if (std::isxdigit(static_cast<unsigned char>(c)) == 0) {
      return false;
    }
  }
  return true;
}

// "litellm.RateLimitError: …": the text of a LiteLLM exception, which aider prints as is.
bool is_model_error(std::string_view line) {
  if (!starts_with(line, "litellm.")) {
    return false;
  }
  std::size_t at = 8;
  while (at < line.size() && std::isalpha(static_cast<unsigned char>(line[at])) != 0) {
    ++at;
  }
  return at > 8 && at < line.size() && line[at] == ':';
}

// "12k", "1.2k", "850", "3.4M" as aider's format_tokens() writes them.
std::optional<std::int64_t> token_count(std::string_view text) {
  double number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || !std::isfinite(number) || number < 0) {
    return std::nullopt;
  }
  const std::string_view suffix(end, static_cast<std::size_t>(text.data() + text.size() - end));
  double scale = 1;
  if (suffix == "k") {
    scale = 1e3;
  } else if (suffix == "M") {
    scale = 1e6;
  } else if (!suffix.empty()) {
    return std::nullopt;
  }
  const double count = std::round(number * scale);
  return count < 9e18 ? std::optional<std::int64_t>(static_cast<std::int64_t>(count))
                      : std::nullopt;
}

// "$0.05 session" → 0.05.
std::optional<double> dollars(std::string_view text) {
  if (!starts_with(text, "$")) {
    return std::nullopt;
  }
  double value = 0;
  const auto [end, error] = std::from_chars(text.data() + 1, text.data() + text.size(), value);
  if (error != std::errc() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// The items of "Tokens: a, b, c." or "Cost: a, b." without the label and the final period.
std::vector<std::string_view> report_items(std::string_view report) {
  if (!report.empty() && report.back() == '.') {
    report.remove_suffix(1);
  }
  std::vector<std::string_view> items;
  while (!report.empty()) {
    const std::size_t comma = report.find(", ");
    items.push_back(report.substr(0, comma));
    report = comma == std::string_view::npos ? std::string_view() : report.substr(comma + 2);
  }
  return items;
}

} // namespace

bool AiderStream::read_usage(std::string_view line) {
  std::string_view tokens;
  std::string_view cost;
  if (starts_with(line, "Tokens: ")) {
    const std::size_t at = line.find(" Cost: $");
    tokens = line.substr(8, at == std::string_view::npos ? at : at - 8);
    cost = at == std::string_view::npos ? std::string_view() : line.substr(at + 7);
  } else if (starts_with(line, "Cost: $")) {
    cost = line.substr(6);
  } else {
    return false;
  }
  Usage usage;
  bool received = false;
  for (const std::string_view item : report_items(tokens)) {
    const std::size_t space = item.find(' ');
    const auto count = token_count(item.substr(0, space));
    const std::string_view label =
        space == std::string_view::npos ? std::string_view() : item.substr(space + 1);
    if (!count) {
      return false;
    }
    if (label == "sent") {
      usage.input_tokens = *count; // the whole prompt, cache writes included (base_coder.py)
    } else if (label == "cache write") {
      usage.cache_write_tokens = *count;
    } else if (label == "cache hit") {
      usage.cache_read_tokens = *count;
    } else if (label == "received") {
      usage.output_tokens = *count;
      received = true;
    }
  }
  std::optional<double> session_cost;
  for (const std::string_view item : report_items(cost)) {
    if (item.ends_with(" session")) {
      session_cost = dollars(item.substr(0, item.size() - 8));
    }
  }
  if (!received && !session_cost) {
    return false; // a model's line that happens to start like a report
  }
  m_usage += usage;
  if (session_cost) {
    m_cost = session_cost;
  }
  m_error.clear(); // a model call came back after any earlier error
  return true;
}

void AiderStream::parse_line(std::string_view line, std::vector<CliEvent>& out) {
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  if (read_usage(line)) {
    out.emplace_back(CliUsage{.usage = m_usage, .cost_usd = m_cost, .thread_total = false});
    return;
  }
  if (is_model_error(line)) {
    m_error = line;
    out.emplace_back(CliNotice{.text = m_error});
    return;
  }
  if ((m_preamble && is_announcement(line)) || starts_with(line, "Applied edit to ") ||
      starts_with(line, "Retrying in ") || is_commit_line(line)) {
    return;
  }
  if (m_preamble && trim(line).empty()) {
    return;
  }
  m_preamble = false;
  std::string text(line);
  text += '\n';
  m_answer += text;
  out.emplace_back(CliText{.text = std::move(text), .delta = true});
}

void AiderStream::finish(std::vector<CliEvent>& out) {
  if (!m_error.empty()) {
    out.emplace_back(CliResult{.ok = false, .answer = {}, .error = m_error});
    return;
  }
  out.emplace_back(CliResult{.ok = true, .answer = std::string(trim(m_answer)), .error = {}});
}

} // namespace ralph::agent
