#include "output_capture.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <algorithm>

namespace ralph::tools {
namespace {

// Bytes kept beyond each budget so the final cut can step back to a UTF-8 boundary (the longest
// sequence is 4 bytes) without losing what lies just past the budget.
constexpr std::size_t k_slack = 4;

} // namespace

OutputCapture::OutputCapture(std::size_t limit)
    : m_limit(limit), m_head_limit(limit * 2 / 5), m_tail_limit(limit - limit * 2 / 5) {}

void OutputCapture::append(std::string_view bytes) {
  m_total += bytes.size();
  const std::size_t head_room =
      m_head_limit + k_slack - std::min(m_head.size(), m_head_limit + k_slack);
  const std::size_t to_head = std::min(head_room, bytes.size());
  m_head.append(bytes.substr(0, to_head));
  m_tail.append(bytes.substr(to_head));
  // Trim only when the tail is twice its budget, so each byte is moved O(1) times on average.
  const std::size_t keep = m_tail_limit + k_slack;
  if (m_tail.size() > 2 * keep + 65536) {
    m_tail.erase(0, m_tail.size() - keep);
  }
}

std::string OutputCapture::text() const {
  if (!truncated()) {
    // Nothing was trimmed: the tail never outgrows its budget while the total fits the limit.
    return m_head + m_tail;
  }
  std::string_view head = utf8_prefix(m_head, m_head_limit);
  // The head's spare bytes belong before the tail when the stream is only just over the limit.
  // (Once the tail has been trimmed it alone is longer than its budget, so the suffix below
  // never reaches back into them across the gap.)
  const std::string after_head = m_head.substr(head.size()) + m_tail;
  std::string_view tail = utf8_suffix(after_head, m_tail_limit);
  // Whole lines read better: cut at a newline when one is near the cut.
  if (const std::size_t newline = head.rfind('\n');
      newline != std::string_view::npos && newline >= head.size() / 2) {
    head = head.substr(0, newline + 1);
  }
  const bool tail_starts_a_line =
      tail.size() < after_head.size() && after_head[after_head.size() - tail.size() - 1] == '\n';
  if (const std::size_t newline = tail.find('\n');
      !tail_starts_a_line && newline != std::string_view::npos && newline < tail.size() / 2) {
    tail = tail.substr(newline + 1);
  }
  return fmt::format("{}{}[... {} bytes omitted ...]\n{}", head,
                     head.empty() || head.back() == '\n' ? "" : "\n",
                     m_total - head.size() - tail.size(), tail);
}

} // namespace ralph::tools
