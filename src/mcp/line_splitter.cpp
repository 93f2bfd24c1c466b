#include "line_splitter.h"

#include <utility>

namespace ralph::mcp {

LineSplitter::LineSplitter(std::size_t max_line, LineHandler on_line, OversizeHandler on_oversize)
    : m_max_line(max_line), m_on_line(std::move(on_line)), m_on_oversize(std::move(on_oversize)) {}

void LineSplitter::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const auto newline = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, newline);
    if (m_skipped > 0) {
      m_skipped += piece.size();
    } else if (m_pending.size() + piece.size() > m_max_line) {
      m_skipped = m_pending.size() + piece.size();
      m_pending.clear();
    } else {
      m_pending.append(piece);
    }
    if (newline == std::string_view::npos) {
      return;
    }
    bytes.remove_prefix(newline + 1);
    if (m_skipped > 0) {
      m_on_oversize(std::exchange(m_skipped, 0));
      continue;
    }
    std::string line = std::exchange(m_pending, {});
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    m_on_line(line);
  }
}

} // namespace ralph::mcp
