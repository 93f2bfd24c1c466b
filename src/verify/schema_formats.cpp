#include "schema_formats.h"

#include "schema_uri.h"

#include <re2/re2.h>

#include <algorithm>
#include <arpa/inet.h>
#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace ralph::verify {
namespace {

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_alpha(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0;
}
bool is_hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_non_ascii(char c) {
  return static_cast<unsigned char>(c) >= 0x80;
}

// `count` digits at `at` as a number, or -1.
int number_at(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) {
    return -1;
  }
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (!is_digit(text[i])) {
      return -1;
    }
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

// RFC 3339 full-date: YYYY-MM-DD, the day existing in that month.
bool is_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') {
    return false;
  }
  const int year = number_at(text, 0, 4);
  const int month = number_at(text, 5, 2);
  const int day = number_at(text, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1) {
    return false;
  }
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  constexpr std::array<int, 12> days = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return day <= days[static_cast<std::size_t>(month - 1)] + (month == 2 && leap ? 1 : 0);
}

// RFC 3339 full-time: HH:MM:SS[.frac] then Z or +HH:MM / -HH:MM (a leap second is allowed).
bool is_time(std::string_view text) {
  if (text.size() < 9 || text[2] != ':' || text[5] != ':') {
    return false;
  }
  const int hour = number_at(text, 0, 2);
  const int minute = number_at(text, 3, 2);
  const int second = number_at(text, 6, 2);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) {
    return false;
  }
  std::size_t at = 8;
  if (text[at] == '.') {
    const std::size_t digits_start = ++at;
    while (at < text.size() && is_digit(text[at])) {
      ++at;
    }
    if (at == digits_start) {
      return false;
    }
  }
  const std::string_view offset = text.substr(at);
  if (offset == "Z" || offset == "z") {
    return true;
  }
  if (offset.size() != 6 || (offset[0] != '+' && offset[0] != '-') || offset[3] != ':') {
    return false;
  }
  const int offset_hour = number_at(offset, 1, 2);
  const int offset_minute = number_at(offset, 4, 2);
  return offset_hour >= 0 && offset_hour <= 23 && offset_minute >= 0 && offset_minute <= 59;
}

bool is_date_time(std::string_view text) {
  return text.size() > 11 && (text[10] == 'T' || text[10] == 't') && is_date(text.substr(0, 10)) &&
         is_time(text.substr(11));
}

// RFC 1123 host names; with `international`, labels may hold non-ASCII characters too.
bool is_hostname(std::string_view text, bool international) {
  if (text.empty() || text.size() > 253) {
    return false;
  }
  while (true) {
    const std::size_t dot = std::min(text.find('.'), text.size());
    const std::string_view label = text.substr(0, dot);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    for (const char c : label) {
      if (!is_alpha(c) && !is_digit(c) && c != '-' && !(international && is_non_ascii(c))) {
        return false;
      }
    }
    if (dot == text.size()) {
      return true;
    }
    text.remove_prefix(dot + 1);
  }
}

bool is_ip(int family, std::string_view text) {
  std::array<unsigned char, 16> address{};
  return text.find('\0') == std::string_view::npos &&
         inet_pton(family, std::string(text).c_str(), address.data()) == 1;
}

// local@domain with a dot-atom local part; the domain a host name or a bracketed address.
bool is_email(std::string_view text, bool international) {
  const std::size_t at = text.rfind('@');
  if (at == std::string_view::npos || at == 0) {
    return false;
  }
  const std::string_view local = text.substr(0, at);
  const std::string_view domain = text.substr(at + 1);
  if (local.front() == '.' || local.back() == '.' || local.find("..") != std::string_view::npos) {
    return false;
  }
  constexpr std::string_view atext = "!#$%&'*+-/=?^_`{|}~.";
  for (const char c : local) {
    if (!is_alpha(c) && !is_digit(c) && atext.find(c) == std::string_view::npos &&
        !(international && is_non_ascii(c))) {
      return false;
    }
  }
  if (domain.size() > 2 && domain.front() == '[' && domain.back() == ']') {
    const std::string_view literal = domain.substr(1, domain.size() - 2);
    return literal.rfind("IPv6:", 0) == 0 ? is_ip(AF_INET6, literal.substr(5))
                                          : is_ip(AF_INET, literal);
  }
  return is_hostname(domain, international);
}

// Each character unreserved, a sub-delim, one of `extra`, or a %XX escape (RFC 3986); with
// `international`, any non-ASCII character too (RFC 3987).
bool uri_chars(std::string_view text, std::string_view extra, bool international) {
  constexpr std::string_view allowed = "-._~!$&'()*+,;=";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size() || !is_hex(text[i + 1]) || !is_hex(text[i + 2])) {
        return false;
      }
      i += 2;
    } else if (!is_alpha(c) && !is_digit(c) && allowed.find(c) == std::string_view::npos &&
               extra.find(c) == std::string_view::npos && !(international && is_non_ascii(c))) {
      return false;
    }
  }
  return true;
}

bool is_authority(std::string_view text, bool international) {
  if (const std::size_t at = text.rfind('@'); at != std::string_view::npos) {
    if (!uri_chars(text.substr(0, at), ":", international)) {
      return false;
    }
    text.remove_prefix(at + 1);
  }
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos || !is_ip(AF_INET6, text.substr(1, close - 1))) {
      return false;
    }
    const std::string_view rest = text.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') {
      return false;
    }
    port = rest.empty() ? rest : rest.substr(1);
  } else {
    if (const std::size_t colon = text.rfind(':'); colon != std::string_view::npos) {
      port = text.substr(colon + 1);
      text = text.substr(0, colon);
    }
    if (!uri_chars(text, "", international)) {
      return false;
    }
  }
  return std::all_of(port.begin(), port.end(), is_digit);
}

// RFC 3986 URI (`absolute`) or URI reference; RFC 3987 IRIs with `international`.
bool is_uri(std::string_view text, bool absolute, bool international) {
  if (text.starts_with(':')) {
    return false; // an empty scheme (parse_uri would read it as part of the path)
  }
  const UriParts parts = parse_uri(text);
  if ((parts.fragment && !uri_chars(*parts.fragment, ":@/?", international)) ||
      (parts.query && !uri_chars(*parts.query, ":@/?", international))) {
    return false;
  }
  if (parts.scheme) {
    const std::string& scheme = *parts.scheme;
    if (!is_alpha(scheme.front()) || !std::all_of(scheme.begin(), scheme.end(), [](char c) {
          return is_alpha(c) || is_digit(c) || c == '+' || c == '-' || c == '.';
        })) {
      return false;
    }
  } else if (absolute) {
    return false;
  }
  if (parts.authority && !is_authority(*parts.authority, international)) {
    return false;
  }
  return uri_chars(parts.path, ":@/", international);
}

// RFC 6570: literals, and expressions of an optional operator and variables with modifiers.
bool is_uri_template(std::string_view text) {
  constexpr std::string_view bad_literal = " \"'<>\\^`{|}";
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') {
      if (bad_literal.find(text[i]) != std::string_view::npos ||
          static_cast<unsigned char>(text[i]) < 0x20) {
        return false;
      }
      continue;
    }
    const std::size_t close = text.find('}', i);
    if (close == std::string_view::npos) {
      return false;
    }
    std::string_view expression = text.substr(i + 1, close - i - 1);
    if (!expression.empty() &&
        std::string_view("+#./;?&=,!@|").find(expression.front()) != std::string_view::npos) {
      expression.remove_prefix(1);
    }
    while (true) {
      const std::size_t comma = std::min(expression.find(','), expression.size());
      std::string_view spec = expression.substr(0, comma);
      if (!spec.empty() && spec.back() == '*') {
        spec.remove_suffix(1);
      } else if (const std::size_t colon = spec.find(':'); colon != std::string_view::npos) {
        const std::string_view length = spec.substr(colon + 1);
        if (length.empty() || length.size() > 4 || length.front() == '0' ||
            !std::all_of(length.begin(), length.end(), is_digit)) {
          return false;
        }
        spec = spec.substr(0, colon);
      }
      if (spec.empty() || spec.front() == '.' || !uri_chars(spec, "", false) ||
          spec.find_first_of("-~!$&'()*+,;=") != std::string_view::npos) {
        return false;
      }
      if (comma == expression.size()) {
        break;
      }
      expression.remove_prefix(comma + 1);
    }
    i = close;
  }
  return true;
}

bool is_json_pointer(std::string_view text) {
  if (!text.empty() && text.front() != '/') {
    return false;
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '~' && (i + 1 == text.size() || (text[i + 1] != '0' && text[i + 1] != '1'))) {
      return false;
    }
  }
  return true;
}

bool is_relative_json_pointer(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && is_digit(text[digits])) {
    ++digits;
  }
  if (digits == 0 || (digits > 1 && text.front() == '0')) {
    return false;
  }
  const std::string_view rest = text.substr(digits);
  return rest == "#" || is_json_pointer(rest);
}

bool is_uuid(std::string_view text) {
  if (text.size() != 36) {
    return false;
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? text[i] != '-' : !is_hex(text[i])) {
      return false;
    }
  }
  return true;
}

bool is_regex(std::string_view text) {
  RE2::Options options;
  options.set_log_errors(false);
  return RE2(text, options).ok();
}

using FormatCheck = bool (*)(std::string_view);

constexpr std::array<std::pair<std::string_view, FormatCheck>, 17> k_formats = {{
    {"date-time", is_date_time},
    {"date", is_date},
    {"time", is_time},
    {"email", [](std::string_view text) { return is_email(text, false); }},
    {"idn-email", [](std::string_view text) { return is_email(text, true); }},
    {"hostname", [](std::string_view text) { return is_hostname(text, false); }},
    {"ipv4", [](std::string_view text) { return is_ip(AF_INET, text); }},
    {"ipv6", [](std::string_view text) { return is_ip(AF_INET6, text); }},
    {"uri", [](std::string_view text) { return is_uri(text, true, false); }},
    {"uri-reference", [](std::string_view text) { return is_uri(text, false, false); }},
    {"iri", [](std::string_view text) { return is_uri(text, true, true); }},
    {"iri-reference", [](std::string_view text) { return is_uri(text, false, true); }},
    {"uri-template", is_uri_template},
    {"json-pointer", is_json_pointer},
    {"relative-json-pointer", is_relative_json_pointer},
    {"regex", is_regex},
    {"uuid", is_uuid},
}};

const FormatCheck* find_check(std::string_view name) {
  const auto* it = std::find_if(k_formats.begin(), k_formats.end(),
                                [&](const auto& entry) { return entry.first == name; });
  return it == k_formats.end() ? nullptr : &it->second;
}

} // namespace

bool is_checked_format(std::string_view name) {
  return find_check(name) != nullptr;
}

std::string checked_formats() {
  std::string names;
  for (const auto& [name, check] : k_formats) {
    names += (names.empty() ? "" : ", ") + std::string(name);
  }
  return names;
}

bool matches_format(std::string_view name, std::string_view text) {
  const FormatCheck* check = find_check(name);
  return check != nullptr && (*check)(text);
}

} // namespace ralph::verify
