#include "rlm/line_index.h"

#include <algorithm>
#include <cstring>

namespace ralph::rlm {
namespace {

// How much is scanned between two calls of `keep_going`: a few milliseconds of memchr.
constexpr std::size_t k_check_bytes = std::size_t{8} << 20;

const char* find_break(const char* from, const char* end) {
  return static_cast<const char*>(std::memchr(from, '\n', static_cast<std::size_t>(end - from)));
}

} // namespace

LineIndex::LineIndex(std::string_view text) : m_text(text) {
  m_checkpoints.push_back(0);
}

bool LineIndex::build(const std::function<bool()>& keep_going) {
  const char* const begin = m_text.data();
  while (!m_complete) {
    if (!keep_going()) {
      return false;
    }
    const std::size_t stop = std::min(m_text.size(), m_scanned + k_check_bytes);
    const char* const end = begin + stop;
    for (const char* p = begin + m_scanned; p < end;) {
      const char* found = find_break(p, end);
      if (found == nullptr) {
        break;
      }
      ++m_breaks;
      p = found + 1;
      if (m_breaks % k_stride == 0) {
        m_checkpoints.push_back(static_cast<std::uint64_t>(p - begin));
      }
    }
    m_scanned = stop;
    if (m_scanned == m_text.size()) {
      const bool open_last_line = !m_text.empty() && m_text.back() != '\n';
      m_line_count = m_breaks + (open_last_line ? 1 : 0);
      m_complete = true;
    }
  }
  return true;
}

std::size_t LineIndex::line_start(std::size_t number) const {
  const std::size_t index = (number - 1) / k_stride;
  std::size_t start = m_checkpoints[index];
  const char* const end = m_text.data() + m_text.size();
  for (std::size_t skip = (number - 1) % k_stride; skip > 0; --skip) {
    start = static_cast<std::size_t>(find_break(m_text.data() + start, end) - m_text.data()) + 1;
  }
  return start;
}

std::string_view LineIndex::line_at(std::size_t start, std::size_t* next) const {
  const char* const end = m_text.data() + m_text.size();
  const char* found = find_break(m_text.data() + start, end);
  const std::size_t stop =
      found == nullptr ? m_text.size() : static_cast<std::size_t>(found - m_text.data());
  *next = found == nullptr ? m_text.size() : stop + 1;
  std::string_view line = m_text.substr(start, stop - start);
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  return line;
}

std::string_view LineIndex::line(std::size_t number) const {
  std::size_t next = 0;
  return line_at(line_start(number), &next);
}

std::size_t LineIndex::line_of(std::size_t offset) const {
  // The last checkpoint at or before `offset`, then the breaks between it and `offset`.
  const auto after = std::upper_bound(m_checkpoints.begin(), m_checkpoints.end(), offset);
  const auto index = static_cast<std::size_t>(after - m_checkpoints.begin()) - 1;
  const char* const from = m_text.data() + m_checkpoints[index];
  const char* const to = m_text.data() + offset;
  return index * k_stride + 1 + static_cast<std::size_t>(std::count(from, to, '\n'));
}

} // namespace ralph::rlm
