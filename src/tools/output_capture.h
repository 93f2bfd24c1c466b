#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ralph::tools {

// Collects a stream of bytes in bounded memory: the whole stream while it fits in `limit`,
// otherwise its head and its (larger) tail, since the end of a command's output usually says
// what went wrong. Memory stays O(limit) however much is appended.
class OutputCapture {
public:
  explicit OutputCapture(std::size_t limit);

  void append(std::string_view bytes);
  std::uint64_t total() const { return m_total; }
  bool truncated() const { return m_total > m_limit; }
  // The kept bytes. When truncated: head and tail, each cut on a UTF-8 boundary, joined by a
  // line "[... N bytes omitted ...]" (the same marker as keep_head_and_tail), at line breaks
  // when there are some near the cuts.
  std::string text() const;

private:
  std::size_t m_limit;
  std::size_t m_head_limit;
  std::size_t m_tail_limit;
  std::string m_head; // the first bytes, a few more than m_head_limit
  std::string m_tail; // the bytes after the head; only the latest ones once over the limit
  std::uint64_t m_total = 0;
};

} // namespace ralph::tools
