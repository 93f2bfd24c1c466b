#include "ralph/core/quantity.h"

#include "ralph/core/text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace ralph {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The length of the unsigned decimal at the start of `text` ("12", "1.5"; not "1." or ".5"), 0
// when there is none.
std::size_t number_length(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && is_digit(text[i])) {
    ++i;
  }
  if (i == 0) {
    return 0;
  }
  if (i + 1 < text.size() && text[i] == '.' && is_digit(text[i + 1])) {
    i += 2;
    while (i < text.size() && is_digit(text[i])) {
      ++i;
    }
  }
  return i;
}

std::optional<double> to_double(std::string_view number) {
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc{} || end != number.data() + number.size()) {
    return std::nullopt;
  }
  return value;
}

struct DurationUnit {
  std::string_view name;
  double milliseconds;
};

// Largest first: a duration names its units in this order.
constexpr DurationUnit k_duration_units[] = {
    {"d", 86'400'000.0}, {"h", 3'600'000.0}, {"m", 60'000.0}, {"s", 1000.0}, {"ms", 1.0},
};

// Past this a duration is a typo, and milliseconds would overflow long before a double does.
constexpr double k_max_milliseconds = 1e15;

} // namespace

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  const std::string_view rest = trim(text);
  const std::size_t whole = number_length(rest);
  if (whole == 0) {
    return std::nullopt;
  }
  double total = 0;
  if (whole == rest.size()) {
    total = to_double(rest).value_or(-1) * 1000.0; // bare seconds
  } else {
    std::size_t next_unit = 0; // units must come largest first, each at most once
    std::string_view left = rest;
    while (!left.empty()) {
      const std::size_t digits = number_length(left);
      std::size_t letters = digits;
      while (letters < left.size() && std::isalpha(static_cast<unsigned char>(left[letters]))) {
        ++letters;
      }
      const std::string unit = to_lower_ascii(left.substr(digits, letters - digits));
      std::size_t found = next_unit;
      while (found < std::size(k_duration_units) && k_duration_units[found].name != unit) {
        ++found;
      }
      if (digits == 0 || found == std::size(k_duration_units)) {
        return std::nullopt;
      }
      total +=
          to_double(left.substr(0, digits)).value_or(-1) * k_duration_units[found].milliseconds;
      next_unit = found + 1;
      left.remove_prefix(letters);
    }
  }
  if (!(total >= 0 && total <= k_max_milliseconds)) {
    return std::nullopt;
  }
  return std::chrono::milliseconds(std::llround(total));
}

std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> parse_count(std::string_view text) {
  const std::string_view rest = trim(text);
  const std::size_t length = number_length(rest);
  if (length == 0 || rest.size() > length + 1) {
    return std::nullopt;
  }
  std::size_t zeros = 0; // the suffix as a power of ten
  if (rest.size() == length + 1) {
    switch (to_lower_ascii(rest.back())) {
    case 'k':
      zeros = 3;
      break;
    case 'm':
      zeros = 6;
      break;
    case 'g':
      zeros = 9;
      break;
    default:
      return std::nullopt;
    }
  }
  // Exact decimal arithmetic: move the point `zeros` places right; what is left after it must
  // be zeros.
  const std::string_view number = rest.substr(0, length);
  const std::size_t point = number.find('.');
  std::string digits(number.substr(0, point));
  std::string fraction(point == std::string_view::npos ? "" : number.substr(point + 1));
  if (fraction.size() < zeros) {
    fraction.append(zeros - fraction.size(), '0');
  }
  if (fraction.find_first_not_of('0', zeros) != std::string::npos) {
    return std::nullopt; // "1.2345k": not a whole count
  }
  digits += fraction.substr(0, zeros);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc{} || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return value;
}

std::optional<double> parse_usd(std::string_view text) {
  std::string_view rest = trim(text);
  if (!rest.empty() && rest.front() == '$') {
    rest.remove_prefix(1);
  }
  if (rest.empty() || number_length(rest) != rest.size()) {
    return std::nullopt;
  }
  return to_double(rest);
}

} // namespace ralph
