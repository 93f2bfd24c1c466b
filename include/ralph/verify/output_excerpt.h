#pragma once

#include <cstddef>
#include <string>
#include <string_view>

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

// Whether `line` names a failure or an error: `FAIL`, `[  FAILED  ]`, `not ok`, `ERROR`,
// `SomeError`, `error:`, `Traceback`, `assert`, `Expected`, `panicked`, `✗`, `make: ***`,
// `undefined reference`, ... Case-sensitive on purpose: "error:" is one, "0 errors" is not.
bool is_failure_line(std::string_view line);

} // namespace ralph::verify
