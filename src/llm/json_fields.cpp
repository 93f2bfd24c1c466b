#include "llm/json_fields.h"

#include <nlohmann/json.hpp>

namespace ralph::llm {

const nlohmann::json* member(const nlohmann::json& value, const char* key) {
  if (!value.is_object()) {
    return nullptr;
  }
  const auto it = value.find(key);
  return it == value.end() ? nullptr : &*it;
}

std::string_view string_member(const nlohmann::json& value, const char* key) {
  const nlohmann::json* field = member(value, key);
  if (field == nullptr || !field->is_string()) {
    return {};
  }
  return field->get_ref<const std::string&>();
}

std::optional<std::int64_t> int_member(const nlohmann::json& value, const char* key) {
  const nlohmann::json* field = member(value, key);
  if (field == nullptr) {
    return std::nullopt;
  }
  if (field->is_number_integer()) {
    return field->get<std::int64_t>();
  }
  if (field->is_number_float()) {
    const double number = field->get<double>();
    // Casting a double outside the int64 range is undefined.
    if (number > -9e18 && number < 9e18) {
      return static_cast<std::int64_t>(number);
    }
  }
  return std::nullopt;
}

std::string arguments_or_empty_object(std::string arguments) {
  if (arguments.find_first_not_of(" \t\r\n") == std::string::npos) {
    return "{}";
  }
  return arguments;
}

} // namespace ralph::llm
