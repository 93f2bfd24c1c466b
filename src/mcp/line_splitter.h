#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace ralph::mcp {

// Cuts a byte stream into newline-delimited lines (stdio's framing), whatever the chunks. A line
// longer than `max_line` is dropped whole (reported once, with its size so far) instead of
// growing without bound; a trailing CR is removed.
class LineSplitter {
public:
  using LineHandler = std::function<void(std::string_view line)>;
  using OversizeHandler = std::function<void(std::size_t bytes)>;

  LineSplitter(std::size_t max_line, LineHandler on_line, OversizeHandler on_oversize);

  void feed(std::string_view bytes);

private:
  std::size_t m_max_line;
  LineHandler m_on_line;
  OversizeHandler m_on_oversize;
  std::string m_pending;
  std::size_t m_skipped = 0; // bytes of an oversized line being dropped; 0 when none
};

} // namespace ralph::mcp
