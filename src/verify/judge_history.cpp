#include "verify/judge_history.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <algorithm>

namespace ralph::verify::judge_detail {
namespace {

// Per-message caps: the history is context for the judge, not the thing judged, so a long tool
// output or an earlier essay must not crowd out the turns around it.
constexpr std::size_t k_message_chars = 1500;
constexpr std::size_t k_tool_chars = 240;
constexpr std::size_t k_turn_chars = 6000;

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '\v';
}

// One line: whitespace runs become one space, then the tail is cut to `keep` bytes.
std::string one_line(std::string_view raw, std::size_t keep) {
  const std::string_view whole = trim(raw);
  // Only a prefix can be shown; repairing the rest of a large tool output would be wasted work.
  const std::string_view prefix = utf8_prefix(whole, 2 * keep + 16);
  const std::string text = repaired(prefix);
  std::string out;
  out.reserve(std::min(text.size(), keep + 8));
  bool space = false;
  for (char c : text) {
    if (is_space(c)) {
      space = true;
      continue;
    }
    if (space) {
      out.push_back(' ');
      space = false;
    }
    out.push_back(c);
    if (out.size() > keep + 4) {
      break; // enough to know it is cut
    }
  }
  if (out.size() <= keep && prefix.size() == whole.size()) {
    return out;
  }
  return fmt::format("{} [… {} chars in all]", utf8_prefix(out, keep), whole.size());
}

std::string message_text(std::string_view raw) {
  return cut_tail(clip(trim(raw), k_message_chars), k_message_chars);
}

void render_message(const Message& message, const Attempt& attempt,
                    std::vector<std::string>& lines) {
  switch (message.role) {
  case Role::system:
    return; // the agent's own instructions are not the user's words
  case Role::user:
    if (trim(message.content) == trim(attempt.goal)) {
      lines.emplace_back("user: (the request above)\n");
      return;
    }
    lines.push_back(fmt::format("user: {}\n", message_text(message.content)));
    return;
  case Role::assistant:
    if (!trim(message.content).empty()) {
      lines.push_back(fmt::format("assistant: {}\n", message_text(message.content)));
    } else if (message.tool_calls.empty()) {
      lines.emplace_back("assistant: (no text)\n");
    }
    for (const ToolCall& call : message.tool_calls) {
      lines.push_back(fmt::format("assistant called {}({})\n", one_line(call.name, 64),
                                  one_line(call.arguments, k_tool_chars)));
    }
    return;
  case Role::tool:
    lines.push_back(fmt::format("tool result {}{}: {}\n", one_line(message.tool_name, 64),
                                message.is_error ? " (error)" : "",
                                one_line(message.content, k_tool_chars)));
    return;
  }
}

// A turn's lines within k_turn_chars: its opening message and its newest steps.
std::string join_turn(const std::vector<std::string>& lines, bool opens_with_user) {
  std::size_t total = 0;
  for (const std::string& line : lines) {
    total += line.size();
  }
  std::string out;
  if (total <= k_turn_chars) {
    for (const std::string& line : lines) {
      out += line;
    }
    return out;
  }
  const std::size_t first = opens_with_user ? 1 : 0;
  std::size_t used = first == 1 ? lines[0].size() : 0;
  std::size_t begin = lines.size();
  while (begin > first && used + lines[begin - 1].size() <= k_turn_chars) {
    used += lines[--begin].size();
  }
  if (first == 1) {
    out += lines[0];
  }
  out += fmt::format("[… {} earlier steps of this turn omitted …]\n", begin - first);
  for (std::size_t i = begin; i < lines.size(); ++i) {
    out += lines[i];
  }
  return out;
}

} // namespace

std::string trimmed_marker(std::size_t chars) {
  return fmt::format("[… {} chars trimmed …]", chars);
}

std::string repaired(std::string_view text) {
  // Most prompt text is ASCII, and checking for that is far cheaper than the byte-by-byte copy.
  if (std::all_of(text.begin(), text.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return std::string(text);
  }
  return to_valid_utf8(text);
}

ClippedText clip(std::string_view raw, std::size_t max) {
  const std::string_view prefix = utf8_prefix(raw, max);
  return {repaired(prefix), raw.size(), prefix.size() == raw.size()};
}

std::string cut_tail(const ClippedText& clipped, std::size_t keep) {
  if (clipped.complete && clipped.text.size() <= keep) {
    return clipped.text;
  }
  const std::string_view kept = utf8_prefix(clipped.text, keep);
  // Repairs can make the clipped text longer than the original; the count never goes negative.
  const std::size_t trimmed = clipped.whole > kept.size() ? clipped.whole - kept.size() : 0;
  return fmt::format("{}\n{}", kept, trimmed_marker(trimmed));
}

std::vector<std::string> render_history_turns(const Attempt& attempt, int max_turns,
                                              int& total_turns) {
  const std::span<const Message> conversation = attempt.conversation;
  std::size_t end = conversation.size();
  // The final answer is judged in its own section, not repeated here.
  if (end > 0 && end - 1 >= attempt.attempt_begin &&
      conversation[end - 1].role == Role::assistant && conversation[end - 1].tool_calls.empty()) {
    --end;
  }
  std::vector<std::size_t> starts; // index where each turn begins
  for (std::size_t i = 0; i < end; ++i) {
    if (conversation[i].role == Role::system) {
      continue;
    }
    if (starts.empty() || conversation[i].role == Role::user) {
      starts.push_back(i);
    }
  }
  total_turns = static_cast<int>(starts.size());
  const std::size_t keep =
      std::min(starts.size(), static_cast<std::size_t>(std::max(max_turns, 0)));
  std::vector<std::string> turns;
  turns.reserve(keep);
  for (std::size_t t = starts.size() - keep; t < starts.size(); ++t) {
    const std::size_t stop = t + 1 < starts.size() ? starts[t + 1] : end;
    std::vector<std::string> lines;
    for (std::size_t i = starts[t]; i < stop; ++i) {
      render_message(conversation[i], attempt, lines);
    }
    turns.push_back(join_turn(lines, conversation[starts[t]].role == Role::user));
  }
  return turns;
}

} // namespace ralph::verify::judge_detail
