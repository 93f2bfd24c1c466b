#include "ralph/verify/output_lines.h"

#include "ralph/core/text.h"

#include <algorithm>
#include <utility>

namespace ralph::verify {

LineSplitter::LineSplitter(std::vector<LineConsumer*> consumers)
    : m_consumers(std::move(consumers)) {}

void LineSplitter::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    if (m_after_cr && bytes.front() == '\n') {
      bytes.remove_prefix(1); // CR LF ends one line
    }
    m_after_cr = false;
    // (find_first_of calls memchr over the set for every byte: a plain scan is several times
    // faster.)
    const auto stop =
        std::find_if(bytes.begin(), bytes.end(), [](char c) { return c == '\n' || c == '\r'; });
    const std::size_t end = stop == bytes.end() ? std::string_view::npos
                                                : static_cast<std::size_t>(stop - bytes.begin());
    const std::string_view part = bytes.substr(0, end);
    if (m_line.size() < k_max_line_bytes) {
      m_line.append(part.substr(0, k_max_line_bytes - m_line.size()));
    }
    if (end == std::string_view::npos) {
      m_break_at_end = m_break_at_end && part.empty();
      return;
    }
    m_after_cr = bytes[end] == '\r';
    emit();
    m_break_at_end = true;
    bytes.remove_prefix(end + 1);
  }
}

void LineSplitter::finish() {
  if (!m_line.empty()) {
    emit();
  }
  for (LineConsumer* consumer : m_consumers) {
    consumer->on_end(m_number, m_break_at_end);
  }
}

void LineSplitter::emit() {
  const std::string line = clean_line(m_line);
  for (LineConsumer* consumer : m_consumers) {
    consumer->on_line(m_number, line);
  }
  ++m_number;
  m_line.clear();
}

std::string clean_line(std::string_view line) {
  if (line.find('\x1b') == std::string_view::npos) {
    return to_valid_utf8(line);
  }
  const std::string valid = to_valid_utf8(line);
  std::string out;
  out.reserve(valid.size());
  for (std::size_t i = 0; i < valid.size(); ++i) {
    if (valid[i] == '\x1b' && i + 1 < valid.size() && valid[i + 1] == '[') {
      // CSI: parameters and intermediates, then one final byte in @..~.
      std::size_t end = i + 2;
      while (end < valid.size() && (valid[end] < '@' || valid[end] > '~')) {
        ++end;
      }
      i = end;
      continue;
    }
    out += valid[i];
  }
  return out;
}

} // namespace ralph::verify
