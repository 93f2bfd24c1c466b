#pragma once

#include "ralph/verify/output_lines.h"

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::verify {

// What an agent is shown of a long command output: every line that names a failure or an error
// (see is_failure_line) with a few lines of context, in output order, gaps marked with a line
// `[... N lines ...]`, plus the last lines of the output, where summaries live. When the budget
// runs short the tail and the first failures win; when nothing matches, it is as much of the
// tail as fits.
// The whole output comes back when it fits. The result is valid UTF-8 (invalid bytes replaced,
// terminal colour codes removed), never longer than `budget_chars` bytes (hence never more
// characters either), and depends only on the arguments.
std::string excerpt_failures(std::string_view output, std::size_t budget_chars);

// The same excerpt built as the output streams by (a LineSplitter's consumer), so a failure in
// the middle of an output of any size is found, in memory bounded by the budget: the whole text
// while it fits, the last lines, and the first failures with their context.
class FailureExcerpt final : public LineConsumer {
public:
  explicit FailureExcerpt(std::size_t budget_chars);

  void on_line(std::size_t number, std::string_view line) override;
  void on_end(std::size_t lines, bool break_at_end) override;

  // The excerpt, once on_end was called; what excerpt_failures returns for the same output.
  std::string text() const;
  // How many lines named a failure, kept or not.
  std::size_t failure_lines() const { return m_failure_count; }

private:
  struct Kept {
    std::size_t number = 0;
    std::string text; // as shown: a long line shortened
  };

  void keep(std::size_t number, std::string_view shown);

  std::size_t m_budget;
  std::string m_whole; // the cleaned output while it fits the budget
  bool m_whole_fits = true;
  std::string m_recent;    // the last bytes of the cleaned output, for a last line too long
  std::deque<Kept> m_tail; // the last lines: at least the budget's worth and 15 lines
  std::size_t m_tail_bytes = 0;
  std::vector<Kept> m_kept;            // failures with their context, in order
  std::vector<std::size_t> m_failures; // line numbers of the kept failures
  std::size_t m_failure_bytes = 0;     // shown bytes of the kept failure lines alone
  std::size_t m_context_until = 0;     // lines up to here follow a failure (exclusive)
  std::size_t m_failure_count = 0;
  std::size_t m_lines = 0;
  bool m_break_at_end = false;
};

// Whether `line` names a failure or an error: `FAIL`, `[  FAILED  ]`, `not ok`, `ERROR`,
// `SomeError`, `error:`, `Traceback`, `assert`, `Expected`, `panicked`, `✗`, `make: ***`,
// `undefined reference`, ... Case-sensitive on purpose: "error:" is one, "0 errors" is not.
bool is_failure_line(std::string_view line);

} // namespace ralph::verify
