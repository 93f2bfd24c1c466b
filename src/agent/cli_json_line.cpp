#include "agent/cli_json_line.h"

#include "ralph/core/json.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>

namespace ralph::agent {

std::optional<nlohmann::json> cli_json_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  const std::size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos || line[start] != '{') {
    return std::nullopt;
  }
  auto value = parse_json(line.substr(start), "agent CLI output line");
  if (!value || !value->is_object()) {
    return std::nullopt;
  }
  return std::move(*value);
}

std::string json_text(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<double> number_member(const nlohmann::json& value, const char* key) {
  const nlohmann::json* field = member(value, key);
  if (field == nullptr || !field->is_number()) {
    return std::nullopt;
  }
  return field->get<double>();
}

std::optional<int> exit_code_member(const nlohmann::json& value, const char* key) {
  const nlohmann::json* field = member(value, key);
  if (field == nullptr || !field->is_number_integer()) {
    return std::nullopt;
  }
  if (field->is_number_unsigned()) {
    const auto code = field->get<std::uint64_t>();
    if (code > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
      return std::nullopt;
    }
    return static_cast<int>(code);
  }
  const auto code = field->get<std::int64_t>();
  if (code < std::numeric_limits<int>::min() || code > std::numeric_limits<int>::max()) {
    return std::nullopt;
  }
  return static_cast<int>(code);
}

std::string content_text(const nlohmann::json& content) {
  if (content.is_string()) {
    return content.get<std::string>();
  }
  std::string text;
  if (!content.is_array()) {
    return text;
  }
  bool first = true;
  for (const nlohmann::json& block : content) {
    if (string_member(block, "type") != "text") {
      continue;
    }
    if (!first) {
      text += '\n';
    }
    text += string_member(block, "text");
    first = false;
  }
  return text;
}

} // namespace ralph::agent
