#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ralph::rlm {

// What one execution shows the model, bounded to a budget of code points. Keeps the head of
// everything appended and only counts the rest, so printing a gigabyte costs a count, not a
// copy. Cuts only between code points (a byte that is not a UTF-8 continuation byte starts one).
class OutputBuffer {
public:
  explicit OutputBuffer(std::size_t max_chars) : m_max_chars(max_chars) {}

  void append(std::string_view text);

  // Code points appended beyond the budget.
  std::size_t dropped() const { return m_dropped; }

  // The kept text, a `[output truncated: N more chars]` line when something was dropped, then
  // `trailer` (an error or a note from the runtime, cut to the budget or 500 code points,
  // whichever is more), as valid UTF-8.
  std::string finish(std::string_view trailer) const;

private:
  std::size_t m_max_chars;
  std::size_t m_chars = 0;
  std::size_t m_dropped = 0;
  std::string m_text;
};

// The first `max_chars` code points of `text`, and how many code points were left out.
struct CharPrefix {
  std::string_view head;
  std::size_t dropped = 0;
};
CharPrefix char_prefix(std::string_view text, std::size_t max_chars);

} // namespace ralph::rlm
