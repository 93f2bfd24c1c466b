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

struct Segment {
  std::size_t first = 0;
  std::size_t last = 0; // inclusive
};

std::string gap_marker(std::size_t lines) {
  return fmt::format("[... {} {} ...]", lines, lines == 1 ? "line" : "lines");
}

std::string shown(std::string_view line) {
  if (line.size() <= k_max_line_bytes) {
    return std::string(line);
  }
  return std::string(utf8_prefix(line, k_max_line_bytes)) + std::string(k_cut_mark);
}

struct NumberedLine {
  std::size_t number = 0;
  std::string_view text; // as shown
};

// Chooses whole lines under a byte budget among the kept ones (sorted by number; the others
// are gaps). Segments are positions in `lines`.
class Selection {
public:
  Selection(const std::vector<NumberedLine>& lines, std::size_t total, std::size_t budget)
      : m_lines(lines), m_total(total), m_budget(budget), m_prefix(lines.size() + 1, 0),
        m_gap_before(lines.size(), 0) {
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i > 0 && lines[i].number > lines[i - 1].number + 1) {
        m_gap_before[i] = gap_marker(lines[i].number - lines[i - 1].number - 1).size() + 1;
      }
      m_prefix[i + 1] = m_prefix[i] + m_gap_before[i] + lines[i].text.size() + 1;
    }
  }

  // Adds the kept lines numbered [first, last] when the result still fits; says whether it did.
  bool try_add(std::size_t first, std::size_t last) {
    const auto by_number = [](const NumberedLine& line, std::size_t n) { return line.number < n; };
    const auto begin = std::lower_bound(m_lines.begin(), m_lines.end(), first, by_number);
    const auto end = std::lower_bound(m_lines.begin(), m_lines.end(), last + 1, by_number);
    if (begin == end) {
      return false;
    }
    const Segment segment{static_cast<std::size_t>(begin - m_lines.begin()),
                          static_cast<std::size_t>(end - m_lines.begin()) - 1};
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
  // Number of the first line of the last segment: where the selected tail begins.
  std::size_t tail_first() const {
    return m_segments.empty() ? 0 : m_lines[m_segments.back().first].number;
  }

  // The selected lines in order; kept lines that are not consecutive in the output have a gap
  // marker between them, within a segment too.
  std::string render() const {
    std::string out;
    std::size_t next = 0;
    for (const Segment& s : m_segments) {
      for (std::size_t i = s.first; i <= s.last; ++i) {
        if (m_lines[i].number > next) {
          out += gap_marker(m_lines[i].number - next) + '\n';
        }
        out += m_lines[i].text;
        out += '\n';
        next = m_lines[i].number + 1;
      }
    }
    if (next < m_total) {
      out += gap_marker(m_total - next) + '\n';
    }
    if (!out.empty()) {
      out.pop_back();
    }
    return out;
  }

private:
  // Bytes of the rendering: each line and gap marker plus its newline, minus the last newline.
  // Linear in the number of segments: a segment's lines and inner gaps come from prefix sums.
  std::size_t cost(const std::vector<Segment>& segments) const {
    std::size_t total = 0;
    std::size_t next = 0;
    for (const Segment& s : segments) {
      if (m_lines[s.first].number > next) {
        total += gap_marker(m_lines[s.first].number - next).size() + 1;
      }
      total += m_prefix[s.last + 1] - m_prefix[s.first] - m_gap_before[s.first];
      next = m_lines[s.last].number + 1;
    }
    if (next < m_total) {
      total += gap_marker(m_total - next).size() + 1;
    }
    return total == 0 ? 0 : total - 1;
  }

  const std::vector<NumberedLine>& m_lines;
  std::size_t m_total;
  std::size_t m_budget;
  std::vector<std::size_t> m_prefix;     // lines and the gaps before them, summed
  std::vector<std::size_t> m_gap_before; // the gap marker's bytes between line i-1 and i
  std::vector<Segment> m_segments;
};

} // namespace

bool is_failure_line(std::string_view line) {
  return RE2::PartialMatch(line, failure_pattern());
}

FailureExcerpt::FailureExcerpt(std::size_t budget_chars) : m_budget(budget_chars) {}

void FailureExcerpt::keep(std::size_t number, std::string_view text) {
  if (m_kept.empty() || m_kept.back().number < number) {
    m_kept.push_back({number, std::string(text)});
  }
}

void FailureExcerpt::on_line(std::size_t number, std::string_view line) {
  if (m_whole_fits) {
    m_whole.append(line);
    m_whole += '\n';
    if (m_whole.size() > m_budget + 1) {
      m_whole_fits = false;
      m_whole.clear();
      m_whole.shrink_to_fit();
    }
  }
  m_recent.append(line);
  m_recent += '\n';
  // Trim only when twice the need, so each byte is moved O(1) times on average.
  if (const std::size_t need = m_budget + 8; m_recent.size() > 2 * need + 4096) {
    m_recent.erase(0, m_recent.size() - need);
  }

  std::string text = shown(line);
  if (is_failure_line(line)) {
    ++m_failure_count;
    // Past the budget no more failures could be shown, even alone.
    if (m_failure_bytes <= m_budget) {
      m_failure_bytes += text.size() + 1;
      m_failures.push_back(number);
      const std::size_t before = std::min(k_context_before, m_tail.size());
      for (std::size_t i = m_tail.size() - before; i < m_tail.size(); ++i) {
        keep(m_tail[i].number, m_tail[i].text);
      }
      keep(number, text);
      m_context_until = number + 1 + k_context_after;
    }
  } else if (number < m_context_until) {
    keep(number, text);
  }

  m_tail_bytes += text.size() + 1;
  m_tail.push_back({number, std::move(text)});
  while (m_tail.size() > k_tail_lines &&
         m_tail_bytes - (m_tail.front().text.size() + 1) >= m_budget) {
    m_tail_bytes -= m_tail.front().text.size() + 1;
    m_tail.pop_front();
  }
}

void FailureExcerpt::on_end(std::size_t lines, bool break_at_end) {
  m_lines = lines;
  m_break_at_end = break_at_end;
  if (m_whole_fits && !break_at_end && !m_whole.empty()) {
    m_whole.pop_back();
  }
}

std::string FailureExcerpt::text() const {
  if (m_whole_fits && m_whole.size() <= m_budget) {
    return m_whole;
  }
  // The kept lines in order: failures with context, then the tail (which may overlap them).
  std::vector<NumberedLine> lines;
  lines.reserve(m_kept.size() + m_tail.size());
  for (const Kept& k : m_kept) {
    lines.push_back({k.number, k.text});
  }
  for (const Kept& k : m_tail) {
    if (lines.empty() || lines.back().number < k.number) {
      lines.push_back({k.number, k.text});
    }
  }
  const std::size_t n = m_lines;
  if (n == 0) {
    return {};
  }

  // The tail first, held to half the budget when failures compete for the rest (but at least
  // its last line); then the failures in order, each with its context or, when that does not
  // fit, alone.
  Selection half(lines, n, m_failures.empty() ? m_budget : m_budget / 2);
  for (std::size_t count = std::min(k_tail_lines, n); count > 0; --count) {
    if (half.try_add(n - count, n - 1)) {
      break;
    }
  }
  Selection full(lines, n, m_budget);
  if (!full.try_add(half.empty() ? n - 1 : half.tail_first(), n - 1)) {
    // Not even the last line fits: the last bytes, cut on a character boundary.
    const std::string_view body = m_break_at_end && !m_recent.empty()
                                      ? std::string_view(m_recent).substr(0, m_recent.size() - 1)
                                      : std::string_view(m_recent);
    return std::string(utf8_suffix(body, m_budget));
  }
  for (const std::size_t line : m_failures) {
    const std::size_t first = line - std::min(line, k_context_before);
    const std::size_t last = std::min(n - 1, line + k_context_after);
    if (!full.try_add(first, last) && !full.try_add(line, line)) {
      break;
    }
  }
  // More tail only when nothing was recognised: next to recognised failures, the passing lines
  // above the summary are noise the agent would pay for.
  while (m_failures.empty() && full.tail_first() > 0) {
    const std::size_t above = full.tail_first() - 1;
    if (!full.try_add(above, above)) {
      break;
    }
  }
  return full.render();
}

std::string excerpt_failures(std::string_view output, std::size_t budget_chars) {
  FailureExcerpt excerpt(budget_chars);
  LineSplitter splitter({&excerpt});
  splitter.feed(output);
  splitter.finish();
  return excerpt.text();
}

} // namespace ralph::verify
