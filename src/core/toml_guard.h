#pragma once

// A check run on TOML text before toml++ parses it. Private to src/core.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ralph::config_detail {

// Where and why toml++ must not see a text.
struct TomlHazard {
  std::size_t line = 1;
  std::size_t column = 1; // in bytes
  std::string message;
};

// toml++ 3.3.0 (Debian 12's) asks whether a non-ASCII character is whitespace at every place
// TOML allows only ASCII, and for many code points (U+00A1-U+0499, U+2D3E-U+3137,
// U+FB26-U+FEFE: upstream issue 295) that lookup reaches an "unreachable" point: undefined
// behaviour, a crash or worse. It does so outside strings and comments (a quote glued to a
// number, date or time starts no string: the value runs on to a terminator), and in a multi-line
// basic string right after a backslash or after the whitespace a line-ending backslash trims.
// Returns the first such place (any non-ASCII byte there: TOML 1.0 allows none outside strings
// and comments, and inside the string "\uXXXX" says the same), or nullopt.
std::optional<TomlHazard> find_toml_hazard(std::string_view text);

} // namespace ralph::config_detail
