#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::verify {

// Reads a command's output one line at a time, as it streams: the failure excerpt is one
// consumer, a test runner's summary parser may be another. Lines come cleaned: valid UTF-8
// (invalid bytes replaced), terminal colour codes removed, without their line break; a carriage
// return ends a line as a newline does (a progress line overwritten in place reads best as
// separate lines). Numbered from 0.
class LineConsumer {
public:
  virtual ~LineConsumer() = default;
  virtual void on_line(std::size_t number, std::string_view line) = 0;
  // After the last line: how many there were and whether the output ended with a line break.
  virtual void on_end(std::size_t lines, bool break_at_end) {
    (void)lines;
    (void)break_at_end;
  }
};

// Cuts a stream of output bytes into lines for its consumers in bounded memory: only the line
// being read is held, and of a line longer than `k_max_line_bytes` only its first bytes.
class LineSplitter {
public:
  static constexpr std::size_t k_max_line_bytes = 64 * 1024;

  // The consumers must outlive the splitter; they are called in order, on the feeding thread.
  explicit LineSplitter(std::vector<LineConsumer*> consumers);

  void feed(std::string_view bytes);
  // Ends the stream: emits a last line without a break, then calls every on_end. Once only.
  void finish();

private:
  void emit();

  std::vector<LineConsumer*> m_consumers;
  std::string m_line;
  std::size_t m_number = 0;
  bool m_after_cr = false; // a CR ended the last line: a LF right after it ends nothing more
  bool m_break_at_end = false;
};

// `line` (one line of output) as an agent should read it: valid UTF-8, no colour codes.
std::string clean_line(std::string_view line);

} // namespace ralph::verify
