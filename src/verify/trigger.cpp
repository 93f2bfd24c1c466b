#include "ralph/verify/trigger.h"

#include "ralph/core/text.h"
#include "ralph/verify/completion_marker.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace ralph::verify {
namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' ||
         (static_cast<unsigned char>(c) & 0x80) != 0; // non-ASCII letters stay inside words
}

} // namespace

bool contains_keyword(std::string_view text, std::string_view keyword) {
  if (keyword.empty()) {
    return false;
  }
  const std::string haystack = to_lower_ascii(text);
  const std::string needle = to_lower_ascii(keyword);
  const bool single_word = std::all_of(needle.begin(), needle.end(), is_word_char);
  for (std::size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    if (!single_word) {
      return true;
    }
    const bool starts = at == 0 || !is_word_char(haystack[at - 1]);
    const std::size_t end = at + needle.size();
    const bool ends = end == haystack.size() || !is_word_char(haystack[end]);
    if (starts && ends) {
      return true;
    }
  }
  return false;
}

TriggerDecision decide_trigger(const TriggerSettings& settings, std::string_view marker,
                               std::string_view answer, bool heartbeat) {
  if (heartbeat) {
    if (settings.verify_heartbeat || settings.mode == TriggerMode::heartbeat) {
      return {true, "heartbeat run"};
    }
    return {false, "heartbeat runs are not verified (verify_heartbeat is off)"};
  }
  switch (settings.mode) {
  case TriggerMode::always:
    return {true, "trigger always"};
  case TriggerMode::heartbeat:
    return {false, "trigger heartbeat: not a heartbeat run"};
  case TriggerMode::marker:
    if (scan_completion_marker(answer, marker).claimed) {
      return {true, "completion marker"};
    }
    return {false, "no completion marker in the answer"};
  case TriggerMode::keywords:
    for (const auto& keyword : settings.keywords) {
      if (contains_keyword(answer, keyword)) {
        return {true, fmt::format("keyword \"{}\"", keyword)};
      }
    }
    return {false, "no trigger keyword in the answer"};
  }
  return {true, "trigger always"};
}

} // namespace ralph::verify
