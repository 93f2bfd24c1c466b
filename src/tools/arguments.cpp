#include "arguments.h"

#include "ralph/core/json.h"
#include "ralph/core/text.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace ralph::tools {
namespace {

using nlohmann::json;

tl::unexpected<Error> wrong_type(std::string_view key, std::string_view expected,
                                 const json& value) {
  const std::string shown = value.dump(-1, ' ', false, json::error_handler_t::replace);
  return fail(ErrorKind::tool,
              fmt::format("invalid arguments: `{}` must be {}, not {} {}", key, expected,
                          value.type_name(), keep_head_and_tail(shown, 80)));
}

std::optional<double> parse_number(const std::string& text) {
  if (text.empty()) {
    return std::nullopt;
  }
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

} // namespace

Arguments::Arguments(std::unique_ptr<json> value) : m_json(std::move(value)) {}
Arguments::Arguments(Arguments&&) noexcept = default;
Arguments& Arguments::operator=(Arguments&&) noexcept = default;
Arguments::~Arguments() = default;

Result<Arguments> Arguments::parse(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Arguments(std::make_unique<json>(json::object()));
  }
  auto parsed = parse_json(text, "invalid arguments");
  if (!parsed) {
    return fail(ErrorKind::tool, fmt::format("{}; send the arguments as one JSON object, e.g. "
                                             "{{\"path\": \"src/main.cpp\"}}",
                                             parsed.error().message));
  }
  if (!parsed->is_object()) {
    return fail(ErrorKind::tool, fmt::format("invalid arguments: expected a JSON object, got {}",
                                             parsed->type_name()));
  }
  return Arguments(std::make_unique<json>(std::move(*parsed)));
}

const json* Arguments::find(std::string_view key) const {
  const auto it = m_json->find(key);
  if (it == m_json->end() || it->is_null()) {
    return nullptr;
  }
  return &*it;
}

Result<std::string> Arguments::required_string(std::string_view key) const {
  TRY_ASSIGN(std::optional<std::string> value, string(key));
  if (!value) {
    return fail(ErrorKind::tool,
                fmt::format("invalid arguments: `{}` is required (a string)", key));
  }
  return std::move(*value);
}

Result<std::optional<std::string>> Arguments::string(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) {
    return std::optional<std::string>();
  }
  if (!value->is_string()) {
    return wrong_type(key, "a string", *value);
  }
  return value->get<std::string>();
}

Result<std::optional<double>> Arguments::number(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) {
    return std::optional<double>();
  }
  if (value->is_number()) {
    return value->get<double>();
  }
  if (value->is_string()) {
    if (const auto parsed = parse_number(value->get<std::string>())) {
      return parsed;
    }
  }
  return wrong_type(key, "a number", *value);
}

Result<std::optional<std::int64_t>> Arguments::integer(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) {
    return std::optional<std::int64_t>();
  }
  if (value->is_number_integer()) {
    return value->get<std::int64_t>();
  }
  const auto as_number = number(key);
  // 2^53: beyond it a double no longer holds every whole number.
  constexpr double k_largest_exact = 9007199254740992.0;
  if (as_number && *as_number && std::trunc(**as_number) == **as_number &&
      std::fabs(**as_number) <= k_largest_exact) {
    return static_cast<std::int64_t>(**as_number);
  }
  return wrong_type(key, "a whole number", *value);
}

Result<std::optional<bool>> Arguments::boolean(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) {
    return std::optional<bool>();
  }
  if (value->is_boolean()) {
    return value->get<bool>();
  }
  if (value->is_string() && (*value == "true" || *value == "false")) {
    return *value == "true";
  }
  return wrong_type(key, "true or false", *value);
}

} // namespace ralph::tools
