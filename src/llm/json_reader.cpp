#include "llm/json_reader.h"

#include "ralph/core/text.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace ralph::llm {
namespace {

constexpr int k_max_depth = 64;
// DBL_MAX has 309 digits before the point.
constexpr std::size_t k_max_double_digits = 308;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

// True when the JSON number `text` is too large for a double. from_chars (locale-free, unlike
// strtod) says out_of_range for underflow as well, which reads as zero: a long double tells the
// two apart, and past its range too the exponent's sign does.
bool overflows_double(std::string_view text) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  double value = 0;
  if (std::from_chars(first, last, value).ec != std::errc::result_out_of_range) {
    return false;
  }
  long double wide = 0;
  if (std::from_chars(first, last, wide).ec != std::errc::result_out_of_range) {
    return std::fabs(wide) > std::numeric_limits<double>::max();
  }
  const std::size_t e = text.find_first_of("eE");
  return e == std::string_view::npos || e + 1 >= text.size() || text[e + 1] != '-';
}

} // namespace

bool JsonReader::fail() {
  if (!m_failed) {
    m_failed = true;
    m_error_at = m_pos;
  }
  return false;
}

void JsonReader::skip_space() {
  while (m_pos < m_text.size()) {
    const char c = m_text[m_pos];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      return;
    }
    ++m_pos;
  }
}

bool JsonReader::expect(char c) {
  skip_space();
  if (m_pos < m_text.size() && m_text[m_pos] == c) {
    ++m_pos;
    return true;
  }
  return fail();
}

JsonReader::Kind JsonReader::peek() {
  skip_space();
  if (m_failed || m_pos >= m_text.size()) {
    return Kind::invalid;
  }
  m_started = true;
  const char c = m_text[m_pos];
  switch (c) {
  case '{':
    return Kind::object;
  case '[':
    return Kind::array;
  case '"':
    return Kind::string;
  case 't':
  case 'f':
  case 'n':
    return Kind::literal;
  default:
    return c == '-' || is_digit(c) ? Kind::number : Kind::invalid;
  }
}

bool JsonReader::push() {
  if (m_depth >= k_max_depth) {
    return fail();
  }
  ++m_pos;
  m_first |= std::uint64_t{1} << m_depth;
  ++m_depth;
  return true;
}

bool JsonReader::pop(char close) {
  if (m_depth == 0) {
    return fail();
  }
  const std::uint64_t bit = std::uint64_t{1} << (m_depth - 1);
  skip_space();
  if (m_pos >= m_text.size()) {
    return fail();
  }
  const char c = m_text[m_pos];
  if (c == close) {
    ++m_pos;
    --m_depth;
    return false; // the container ended
  }
  if ((m_first & bit) != 0) {
    m_first &= ~bit;
    return true;
  }
  if (c != ',') {
    return fail();
  }
  ++m_pos;
  return true;
}

bool JsonReader::enter_object() {
  if (peek() == Kind::object) {
    return push();
  }
  skip();
  return false;
}

bool JsonReader::enter_array() {
  if (peek() == Kind::array) {
    return push();
  }
  skip();
  return false;
}

bool JsonReader::next_key(std::string_view& key) {
  if (m_failed || !pop('}')) {
    return false;
  }
  skip_space();
  if (m_pos >= m_text.size() || m_text[m_pos] != '"' || !scan_string(key)) {
    return fail();
  }
  return expect(':');
}

bool JsonReader::next_element() {
  if (m_failed || !pop(']')) {
    return false;
  }
  // `[1,]` and `[,1]`: an element must follow.
  return peek() != Kind::invalid || fail();
}

bool JsonReader::scan_string(std::string_view& out) {
  const std::size_t start = ++m_pos; // past the opening quote
  // Fast path: no escapes, the view points into the text.
  while (m_pos < m_text.size()) {
    const char c = m_text[m_pos];
    if (c == '"') {
      out = m_text.substr(start, m_pos - start);
      ++m_pos;
      return true;
    }
    if (c == '\\') {
      break;
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      return fail();
    }
    ++m_pos;
  }
  m_scratch.assign(m_text.substr(start, m_pos - start));
  while (m_pos < m_text.size()) {
    const char c = m_text[m_pos++];
    if (c == '"') {
      out = m_scratch;
      return true;
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      --m_pos;
      return fail();
    }
    if (c != '\\') {
      m_scratch.push_back(c);
      continue;
    }
    if (m_pos >= m_text.size()) {
      return fail();
    }
    const char escape = m_text[m_pos++];
    switch (escape) {
    case '"':
    case '\\':
    case '/':
      m_scratch.push_back(escape);
      break;
    case 'b':
      m_scratch.push_back('\b');
      break;
    case 'f':
      m_scratch.push_back('\f');
      break;
    case 'n':
      m_scratch.push_back('\n');
      break;
    case 'r':
      m_scratch.push_back('\r');
      break;
    case 't':
      m_scratch.push_back('\t');
      break;
    case 'u': {
      const auto hex4 = [&]() -> int {
        if (m_pos + 4 > m_text.size()) {
          return -1;
        }
        int value = 0;
        for (int i = 0; i < 4; ++i) {
          const int digit = hex_value(m_text[m_pos + static_cast<std::size_t>(i)]);
          if (digit < 0) {
            return -1;
          }
          value = value * 16 + digit;
        }
        m_pos += 4;
        return value;
      };
      const int unit = hex4();
      if (unit < 0) {
        return fail();
      }
      std::uint32_t code = static_cast<std::uint32_t>(unit);
      if (code >= 0xD800 && code <= 0xDBFF && m_text.substr(m_pos, 2) == "\\u") {
        const std::size_t mark = m_pos;
        m_pos += 2;
        const int low = hex4();
        if (low >= 0xDC00 && low <= 0xDFFF) {
          code = 0x10000 + ((code - 0xD800) << 10) + (static_cast<std::uint32_t>(low) - 0xDC00);
        } else {
          m_pos = mark; // not a pair: the second escape is read on its own
        }
      }
      append_utf8(m_scratch, code >= 0xD800 && code <= 0xDFFF ? 0xFFFD : code);
      break;
    }
    default:
      --m_pos;
      return fail();
    }
  }
  return fail();
}

bool JsonReader::scan_number() {
  const std::size_t start = m_pos;
  if (m_text[m_pos] == '-') {
    ++m_pos;
  }
  const auto digits = [&] {
    const std::size_t from = m_pos;
    while (m_pos < m_text.size() && is_digit(m_text[m_pos])) {
      ++m_pos;
    }
    return m_pos - from;
  };
  std::size_t whole_digits = 1;
  if (m_pos < m_text.size() && m_text[m_pos] == '0') {
    ++m_pos;
  } else if ((whole_digits = digits()) == 0) {
    return fail();
  }
  if (m_pos < m_text.size() && m_text[m_pos] == '.') {
    ++m_pos;
    if (digits() == 0) {
      return fail();
    }
  }
  bool exponent = false;
  if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
    exponent = true;
    ++m_pos;
    if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-')) {
      ++m_pos;
    }
    if (digits() == 0) {
      return fail();
    }
  }
  // Only an exponent or more digits than a double's range can overflow (1e999): such a number
  // is malformed, as for parse_json. Underflow (1e-999) reads as zero there too.
  if ((exponent || whole_digits > k_max_double_digits) &&
      overflows_double(m_text.substr(start, m_pos - start))) {
    m_pos = start;
    return fail();
  }
  return m_pos > start;
}

bool JsonReader::scan_literal() {
  for (std::string_view literal : {"true", "false", "null"}) {
    if (m_text.substr(m_pos, literal.size()) == literal) {
      m_pos += literal.size();
      return true;
    }
  }
  return fail();
}

bool JsonReader::read_string(std::string_view& out) {
  if (peek() != Kind::string) {
    skip();
    return false;
  }
  return scan_string(out);
}

std::optional<std::int64_t> JsonReader::read_int() {
  if (peek() != Kind::number) {
    skip();
    return std::nullopt;
  }
  const std::size_t start = m_pos;
  if (!scan_number()) {
    return std::nullopt;
  }
  const char* first = m_text.data() + start;
  const char* last = m_text.data() + m_pos;
  std::int64_t value = 0;
  if (auto [end, ec] = std::from_chars(first, last, value); ec == std::errc{} && end == last) {
    return value;
  }
  double number = 0;
  if (auto [end, ec] = std::from_chars(first, last, number);
      ec == std::errc{} && end == last && std::fabs(number) < 9e18) {
    return static_cast<std::int64_t>(number);
  }
  return std::nullopt;
}

void JsonReader::skip() {
  switch (peek()) {
  case Kind::object: {
    push();
    std::string_view key;
    while (next_key(key)) {
      skip();
    }
    return;
  }
  case Kind::array:
    push();
    while (next_element()) {
      skip();
    }
    return;
  case Kind::string: {
    std::string_view ignored;
    scan_string(ignored);
    return;
  }
  case Kind::number:
    scan_number();
    return;
  case Kind::literal:
    scan_literal();
    return;
  case Kind::invalid:
    fail();
    return;
  }
}

bool JsonReader::finish() {
  skip_space();
  if (m_failed || !m_started || m_depth != 0 || m_pos != m_text.size()) {
    return fail();
  }
  return true;
}

} // namespace ralph::llm
