#pragma once

#include "ralph/core/error.h"
#include "ralph/tools/tool.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ralph::tools {

// Typed, forgiving access to the JSON arguments of a tool call. Models send malformed text,
// numbers as strings and nulls for "not given"; every getter either copes or returns an Error
// whose message tells the model what to send instead.
class Arguments {
public:
  // An empty text counts as `{}`; anything but a JSON object is an error.
  static Result<Arguments> parse(std::string_view json);

  Arguments(Arguments&&) noexcept;
  Arguments& operator=(Arguments&&) noexcept;
  ~Arguments();

  Result<std::string> required_string(std::string_view key) const;
  // Absent or null: nullopt. Wrong type: an error.
  Result<std::optional<std::string>> string(std::string_view key) const;
  // Whole numbers; "12" and 12.0 are accepted too.
  Result<std::optional<std::int64_t>> integer(std::string_view key) const;
  Result<std::optional<double>> number(std::string_view key) const;
  // true/false, or the strings "true"/"false".
  Result<std::optional<bool>> boolean(std::string_view key) const;

private:
  explicit Arguments(std::unique_ptr<nlohmann::json> json);
  const nlohmann::json* find(std::string_view key) const;

  std::unique_ptr<nlohmann::json> m_json;
};

// A failed call's result: the message goes back to the model.
inline ToolResult error_result(std::string message) {
  ToolResult result;
  result.content = std::move(message);
  result.is_error = true;
  return result;
}

} // namespace ralph::tools
