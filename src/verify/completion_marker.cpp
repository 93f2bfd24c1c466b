#include "ralph/verify/completion_marker.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <utility>

namespace ralph::verify {
namespace {

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

// How text at a place reads against the marker: not it, the whole of it (up to `end`), or its
// start cut off by the end of the text (what a streamed piece may hold).
struct MarkerMatch {
  enum class Kind { none, partial, full } kind = Kind::none;
  std::size_t end = 0;
};

// The marker matched from `begin`, skipping whitespace in both texts.
MarkerMatch marker_at(std::string_view text, std::size_t begin, std::string_view marker) {
  std::size_t t = begin;
  for (char m : marker) {
    if (is_space(m)) {
      continue;
    }
    while (t < text.size() && is_space(text[t]) && t != begin) {
      ++t;
    }
    if (t >= text.size()) {
      return {MarkerMatch::Kind::partial, t};
    }
    if (to_lower_ascii(text[t]) != to_lower_ascii(m)) {
      return {};
    }
    ++t;
  }
  return {MarkerMatch::Kind::full, t};
}

// The end of a whole marker match starting at `begin`.
std::optional<std::size_t> match_at(std::string_view text, std::size_t begin,
                                    std::string_view marker) {
  const MarkerMatch match = marker_at(text, begin, marker);
  return match.kind == MarkerMatch::Kind::full ? std::optional(match.end) : std::nullopt;
}

bool has_letters(std::string_view marker) {
  for (char c : marker) {
    if (!is_space(c)) {
      return true;
    }
  }
  return false;
}

} // namespace

MarkerScan scan_completion_marker(std::string_view answer, std::string_view marker) {
  MarkerScan scan;
  if (!has_letters(marker)) {
    scan.visible = std::string(answer);
    return scan;
  }
  // The last non-empty line, compared whole.
  const std::string_view body = trim(answer);
  const std::size_t newline = body.find_last_of('\n');
  const std::string_view last_line =
      trim(newline == std::string_view::npos ? body : body.substr(newline + 1));
  if (!last_line.empty()) {
    const auto end = match_at(last_line, 0, marker);
    scan.claimed = end && *end == last_line.size();
  }

  std::string visible;
  visible.reserve(answer.size());
  std::size_t copied = 0;
  for (std::size_t i = 0; i < answer.size(); ++i) {
    if (const auto end = match_at(answer, i, marker)) {
      visible.append(answer.substr(copied, i - copied));
      copied = *end;
      i = *end - 1;
    }
  }
  visible.append(answer.substr(copied));
  scan.visible = std::string(trim(visible));
  return scan;
}

MarkerFilter::MarkerFilter(std::string marker)
    : m_marker(has_letters(marker) ? std::move(marker) : std::string()) {}

std::string MarkerFilter::feed(std::string_view piece) {
  if (m_marker.empty()) {
    return std::string(piece);
  }
  m_held.append(piece);
  std::string shown;
  std::size_t copied = 0;
  for (std::size_t i = 0; i < m_held.size(); ++i) {
    const MarkerMatch match = marker_at(m_held, i, m_marker);
    if (match.kind == MarkerMatch::Kind::full) {
      shown.append(m_held, copied, i - copied);
      copied = match.end;
      i = match.end - 1;
    } else if (match.kind == MarkerMatch::Kind::partial) {
      shown.append(m_held, copied, i - copied);
      m_held.erase(0, i);
      return shown;
    }
  }
  shown.append(m_held, copied);
  m_held.clear();
  return shown;
}

std::string MarkerFilter::flush() {
  return std::exchange(m_held, std::string());
}

std::string completion_instructions(std::string_view marker) {
  return fmt::format(
      "\n\nCompletion rule: this run is verified. Before you finish, run the strongest check that "
      "applies (the tests, the build, the linter) with the shell tool, after your last change to "
      "the files, and read its result. Only when that check passes, put the completion marker as "
      "the last line of your answer, alone on that line:\n\n{}\n\nThe marker is not proof: a "
      "claim without a passing check after the last change is rejected and you will be asked to "
      "continue. If the goal cannot be achieved (missing access, contradictory requirements), end "
      "your answer with a line starting with `BLOCKED:` and the reason instead.",
      marker);
}

std::string goal_prompt(std::string_view goal, std::string_view marker,
                        const std::vector<std::string>& checks, std::string_view instructions) {
  std::string out = fmt::format(
      "Goal: {}\n\nWork on this goal until it is done and shown to be done. Follow Plan -> Act "
      "-> Verify -> Reflect -> Retry: plan the smallest steps that reach the goal, carry them out "
      "with your tools, verify the result with the strongest check that applies (the tests, the "
      "build, a linter, running the program), reflect on what the check said, and retry until it "
      "passes.",
      goal);
  if (!checks.empty()) {
    out += "\n\nralph also runs these checks itself on your answer; run them before you finish:";
    for (const std::string& check : checks) {
      out += "\n- " + check;
    }
  }
  if (!instructions.empty()) {
    out += fmt::format("\n\nHow to verify this goal: {}", instructions);
  }
  out += completion_instructions(marker);
  return out;
}

} // namespace ralph::verify
