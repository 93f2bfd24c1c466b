#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace ralph::rlm {

// Line access over a large text without a copy and without one entry per line: the start of
// every 64th line is recorded (8 bytes per 64 lines, ~1.6 MB for a 1 GB log of 80-byte lines)
// and the lines in between are found with memchr. Lines end at '\n'; a '\r' before it is not
// part of the line; a final line without '\n' counts. Built on first use and resumable: a build
// stopped by `keep_going` keeps its progress. Not thread-safe.
class LineIndex {
public:
  explicit LineIndex(std::string_view text);

  // Scans the rest of the text, asking `keep_going` every few MB; false when it said stop.
  bool build(const std::function<bool()>& keep_going);
  bool complete() const { return m_complete; }

  // The following need a complete index.
  std::size_t line_count() const { return m_line_count; }
  // Line `number` (1-based, at most line_count()), without its line break.
  std::string_view line(std::size_t number) const;
  // The line that holds byte `offset` (0-based, below the text's size), 1-based; a '\n' belongs to
  // the line it ends.
  std::size_t line_of(std::size_t offset) const;
  // Byte offset where line `number` starts.
  std::size_t line_start(std::size_t number) const;
  // Line starting at `start` without its line break, and where the next line starts.
  std::string_view line_at(std::size_t start, std::size_t* next) const;

private:
  static constexpr std::size_t k_stride = 64;

  std::string_view m_text;
  std::vector<std::uint64_t> m_checkpoints; // start of lines 1, 1 + 64, 1 + 128, ...
  std::size_t m_scanned = 0;                // bytes scanned so far
  std::size_t m_breaks = 0;                 // '\n' seen so far
  std::size_t m_line_count = 0;
  bool m_complete = false;
};

} // namespace ralph::rlm
