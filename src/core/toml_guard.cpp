#include "toml_guard.h"

#include <fmt/format.h>

#include <vector>

namespace ralph::config_detail {
namespace {

bool is_ascii(char c) {
  return static_cast<unsigned char>(c) < 0x80;
}

// Walks the text as toml++ tokenises strings and comments, keeping the line and column.
class Scanner {
public:
  explicit Scanner(std::string_view text) : m_text(text) {}

  std::optional<TomlHazard> run() {
    while (!at_end()) {
      const char c = peek();
      if (m_in_value && !ends_value(c)) {
        // toml++ reads a value that is not a string up to a terminator, whatever is in it (a
        // quote glued to a number starts no string), and asks about every character there.
        if (!is_ascii(c)) {
          return hazard(m_glued_quote ? "a non-ASCII character after a quote glued to a value, "
                                        "where the quote starts no string"
                                      : "a non-ASCII character outside a string or comment "
                                        "(TOML allows none)");
        }
        m_glued_quote = m_glued_quote || c == '"' || c == '\'';
        m_last = c;
        advance(1);
        continue;
      }
      if (m_in_value) {
        m_in_value = false;
        m_glued_quote = false;
        m_after_value = true;
      }
      if (c == '#') {
        skip_comment();
      } else if (starts_with("\"\"\"")) {
        advance(3);
        if (auto hazard = multi_line_basic()) {
          return hazard;
        }
        m_last = '"';
      } else if (starts_with("'''")) {
        advance(3);
        multi_line_literal();
        m_last = '"';
      } else if (c == '"' || c == '\'') {
        advance(1);
        single_line(c);
        m_last = '"';
      } else if (!is_ascii(c)) {
        return hazard("a non-ASCII character outside a string or comment (TOML allows none)");
      } else {
        structure(c);
        advance(1);
      }
    }
    return std::nullopt;
  }

private:
  // toml++'s value terminators, and the line break.
  static bool ends_value(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' || c == '}' ||
           c == '#';
  }

  // Where a token that is not a string starts, whether it is a value (after `=`, an element of
  // an array, or a value's second part, as the time of `1979-05-27 07:32:00`) or a key (a
  // line's, a table header's, an inline table's).
  bool value_position() const {
    return m_last == '=' || m_after_value ||
           (!m_open.empty() && m_open.back() == '[' && (m_last == '[' || m_last == ','));
  }

  // Tracks the arrays and inline tables a value opens, and where values start.
  void structure(char c) {
    const bool value = value_position();
    if (c == ' ' || c == '\t' || c == '\r') {
      return;
    }
    m_after_value = false;
    if (c == '\n') {
      if (m_open.empty()) {
        m_last = '\n';
      }
      return;
    }
    if (c == '[' && value) {
      m_open.push_back('[');
    } else if (c == '{') {
      m_open.push_back('{');
    } else if ((c == ']' || c == '}') && !m_open.empty() &&
               m_open.back() == (c == ']' ? '[' : '{')) {
      m_open.pop_back();
    } else if (value && c != ',' && c != '=' && c != ']' && c != '}') {
      m_in_value = true;
    }
    m_last = c;
  }

  bool at_end() const { return m_pos >= m_text.size(); }
  char peek(std::size_t ahead = 0) const {
    return m_pos + ahead < m_text.size() ? m_text[m_pos + ahead] : '\0';
  }
  bool starts_with(std::string_view s) const { return m_text.substr(m_pos).starts_with(s); }

  void advance(std::size_t n) {
    for (; n > 0 && !at_end(); --n, ++m_pos) {
      if (m_text[m_pos] == '\n') {
        ++m_line;
        m_line_start = m_pos + 1;
      }
    }
  }

  TomlHazard hazard(std::string_view what) const {
    return {.line = m_line,
            .column = m_pos - m_line_start + 1,
            .message = fmt::format("{}; the TOML reader (toml++ 3.3) cannot take it here", what)};
  }

  void skip_comment() {
    while (!at_end() && peek() != '\n') {
      advance(1);
    }
  }

  // A basic or literal string on one line; an unterminated one ends at the line break, where
  // toml++ reports it.
  void single_line(char quote) {
    while (!at_end() && peek() != quote && peek() != '\n') {
      advance(quote == '"' && peek() == '\\' ? 2 : 1);
    }
    if (peek() == quote) {
      advance(1);
    }
  }

  // Up to two quotes right before the closing three belong to the string.
  bool close_multi_line(char quote) {
    std::size_t run = 0;
    while (peek(run) == quote) {
      ++run;
    }
    if (run < 3) {
      return false;
    }
    advance(std::min<std::size_t>(run, 5));
    return true;
  }

  void multi_line_literal() {
    while (!at_end() && !close_multi_line('\'')) {
      advance(1);
    }
  }

  std::optional<TomlHazard> multi_line_basic() {
    while (!at_end() && !close_multi_line('"')) {
      if (peek() != '\\') {
        advance(1);
        continue;
      }
      advance(1);
      std::size_t blank = 0;
      while (peek(blank) == ' ' || peek(blank) == '\t') {
        ++blank;
      }
      const bool line_ending =
          peek(blank) == '\n' || (peek(blank) == '\r' && peek(blank + 1) == '\n');
      if (!line_ending) {
        if (!at_end() && !is_ascii(peek())) {
          return hazard("a non-ASCII character right after a backslash in a multi-line string");
        }
        advance(1); // the escaped character
        continue;
      }
      while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\r' || peek() == '\n')) {
        advance(1);
      }
      if (!at_end() && !is_ascii(peek())) {
        return hazard("a non-ASCII character first after a line-ending backslash in a multi-line "
                      "string (write it as \\uXXXX)");
      }
    }
    return std::nullopt;
  }

  std::string_view m_text;
  std::vector<char> m_open;   // '[' an array value, '{' an inline table
  char m_last = '\n';         // the last character that is not white space, strings as '"'
  bool m_in_value = false;    // inside a value that is not a string, array or inline table
  bool m_after_value = false; // such a value just ended (white space may follow)
  bool m_glued_quote = false;
  std::size_t m_pos = 0;
  std::size_t m_line = 1;
  std::size_t m_line_start = 0;
};

} // namespace

std::optional<TomlHazard> find_toml_hazard(std::string_view text) {
  return Scanner(text).run();
}

} // namespace ralph::config_detail
