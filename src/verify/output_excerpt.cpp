#include "ralph/verify/output_excerpt.h"

#include "ralph/core/text.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <vector>

namespace ralph::verify {
namespace {

constexpr std::size_t k_tail_lines = 15;    // summaries live in the last lines
constexpr std::size_t k_context_before = 2; // the failing source line, the test being run
constexpr std::size_t k_context_after = 4;  // carets, "Which is:" values, the rest of a message
constexpr std::size_t k_max_line_bytes = 400;
constexpr std::string_view k_cut_mark = " [...]";

// One alternation so each line is scanned once. Compiled on first use and never changed after;
// RE2 matching is thread-safe.
const RE2& failure_pattern() {
  static const RE2 pattern(
      R"(FAIL|\bnot ok\b|\bERROR\b|(Error|Exception)\b|\berror(\[[A-Za-z0-9]+\])?:|\bfatal:)"
      R"(|Traceback|\b[Aa]ssert|\bExpected\b|: Failure$|panicked|\bpanic:|✗|✘|✕)"
      R"(|make(\[[0-9]+\])?: \*\*\*|ninja: build stopped|undefined reference)"
      R"(|Segmentation fault|core dumped|npm ERR!)");
  return pattern;
}

// Valid UTF-8 without terminal colour codes or carriage returns: what the agent should read.
std::string clean(std::string_view output) {
  const std::string valid = to_valid_utf8(output);
  std::string out;
  out.reserve(valid.size());
  for (std::size_t i = 0; i < valid.size(); ++i) {
    const char c = valid[i];
    if (c == '\x1b' && i + 1 < valid.size() && valid[i + 1] == '[') {
      // CSI: parameters and intermediates, then one final byte in @..~.
      std::size_t end = i + 2;
      while (end < valid.size() && (valid[end] < '@' || valid[end] > '~')) {
        ++end;
      }
      i = end;
      continue;
    }
    if (c == '\r') {
      // A progress line overwritten in place reads best as separate lines.
      if (i + 1 < valid.size() && valid[i + 1] == '\n') {
        continue;
      }
      out += '\n';
      continue;
    }
    out += c;
  }
  return out;
}

struct Segment {
  std::size_t first = 0;
  std::size_t last = 0; // inclusive
};

std::string gap_marker(std::size_t lines) {
  return fmt::format("[... {} {} ...]", lines, lines == 1 ? "line" : "lines");
}

// Chooses whole lines (long ones shortened) under a byte budget. Costs come from prefix sums, so
// trying a selection is linear in the number of segments, not of lines.
class Selection {
public:
  Selection(const std::vector<std::string_view>& lines, std::size_t budget)
      : m_lines(lines), m_budget(budget), m_prefix(lines.size() + 1, 0) {
    for (std::size_t i = 0; i < lines.size(); ++i) {
      m_prefix[i + 1] = m_prefix[i] + shown(lines[i]).size() + 1;
    }
  }

  // Adds lines [first, last] when the result still fits; says whether it did.
  bool try_add(Segment segment) {
    std::vector<Segment> candidate = m_segments;
    const auto at =
        std::lower_bound(candidate.begin(), candidate.end(), segment,
                         [](const Segment& a, const Segment& b) { return a.first < b.first; });
    candidate.insert(at, segment);
    std::vector<Segment> merged;
    for (const Segment& s : candidate) {
      if (!merged.empty() && s.first <= merged.back().last + 1) {
        merged.back().last = std::max(merged.back().last, s.last);
        continue;
      }
      merged.push_back(s);
    }
    if (cost(merged) > m_budget) {
      return false;
    }
    m_segments = std::move(merged);
    return true;
  }

  bool empty() const { return m_segments.empty(); }
  // First line of the last segment: where the selected tail begins.
  std::size_t tail_first() const { return m_segments.empty() ? 0 : m_segments.back().first; }

  std::string render() const {
    std::string out;
    std::size_t next = 0;
    for (const Segment& s : m_segments) {
      if (s.first > next) {
        out += gap_marker(s.first - next) + '\n';
      }
      for (std::size_t i = s.first; i <= s.last; ++i) {
        out += shown(m_lines[i]);
        out += '\n';
      }
      next = s.last + 1;
    }
    if (next < m_lines.size()) {
      out += gap_marker(m_lines.size() - next) + '\n';
    }
    if (!out.empty()) {
      out.pop_back();
    }
    return out;
  }

private:
  static std::string shown(std::string_view line) {
    if (line.size() <= k_max_line_bytes) {
      return std::string(line);
    }
    return std::string(utf8_prefix(line, k_max_line_bytes)) + std::string(k_cut_mark);
  }

  // Bytes of the rendering: each line and gap marker plus its newline, minus the last newline.
  std::size_t cost(const std::vector<Segment>& segments) const {
    std::size_t total = 0;
    std::size_t next = 0;
    for (const Segment& s : segments) {
      if (s.first > next) {
        total += gap_marker(s.first - next).size() + 1;
      }
      total += m_prefix[s.last + 1] - m_prefix[s.first];
      next = s.last + 1;
    }
    if (next < m_lines.size()) {
      total += gap_marker(m_lines.size() - next).size() + 1;
    }
    return total == 0 ? 0 : total - 1;
  }

  const std::vector<std::string_view>& m_lines;
  std::size_t m_budget;
  std::vector<std::size_t> m_prefix;
  std::vector<Segment> m_segments;
};

} // namespace

bool is_failure_line(std::string_view line) {
  return RE2::PartialMatch(line, failure_pattern());
}

std::string excerpt_failures(std::string_view output, std::size_t budget_chars) {
  std::string text = clean(output);
  if (text.size() <= budget_chars) {
    return text;
  }
  const std::vector<std::string_view> lines = split_lines(text);
  const std::size_t n = lines.size();
  std::vector<std::size_t> failures;
  for (std::size_t i = 0; i < n; ++i) {
    if (is_failure_line(lines[i])) {
      failures.push_back(i);
    }
  }

  // The tail first, held to half the budget when failures compete for the rest (but at least
  // its last line); then the failures in order, each with its context or, when that does not
  // fit, alone.
  Selection half(lines, failures.empty() ? budget_chars : budget_chars / 2);
  for (std::size_t count = std::min(k_tail_lines, n); count > 0; --count) {
    if (half.try_add({n - count, n - 1})) {
      break;
    }
  }
  Selection full(lines, budget_chars);
  if (!full.try_add({half.empty() ? n - 1 : half.tail_first(), n - 1})) {
    // Not even the last line fits: the last bytes, cut on a character boundary.
    const std::string_view body = text.back() == '\n'
                                      ? std::string_view(text).substr(0, text.size() - 1)
                                      : std::string_view(text);
    return std::string(utf8_suffix(body, budget_chars));
  }
  for (const std::size_t line : failures) {
    const Segment window{line - std::min(line, k_context_before),
                         std::min(n - 1, line + k_context_after)};
    if (!full.try_add(window) && !full.try_add({line, line})) {
      break;
    }
  }
  // More tail only when nothing was recognised: next to recognised failures, the passing lines
  // above the summary are noise the agent would pay for.
  while (failures.empty() && full.tail_first() > 0) {
    const std::size_t above = full.tail_first() - 1;
    if (!full.try_add({above, above})) {
      break;
    }
  }
  return full.render();
}

} // namespace ralph::verify
