#pragma once

#include <string>
#include <string_view>

namespace ralph::cli {

// The first line of `text`, cut to `width` bytes on a UTF-8 boundary, with "…" when anything
// was left out.
std::string first_line(std::string_view text, std::size_t width);

// One line saying what a tool call does, from its raw JSON arguments: `sh test.sh`,
// `path=src/a.py content=<118 bytes>`. Falls back to the raw text, shortened, when the
// arguments are not a JSON object.
std::string summarize_arguments(std::string_view tool, std::string_view arguments_json,
                                std::size_t width);

// The last `lines` non-empty lines of a shell result, without its closing `exit code: N` line.
std::string output_tail(std::string_view content, int lines);

} // namespace ralph::cli
