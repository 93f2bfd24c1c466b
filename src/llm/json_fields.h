#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ralph::llm {

// Non-throwing access to untrusted JSON from model servers: a missing key, a null or a value of
// the wrong type reads as absent.

// The member `key` of `value` when `value` is an object that has it (null included), else nullptr.
const nlohmann::json* member(const nlohmann::json& value, const char* key);
// The member as a string, or empty.
std::string_view string_member(const nlohmann::json& value, const char* key);
// The member as an integer (floats truncated), or nullopt.
std::optional<std::int64_t> int_member(const nlohmann::json& value, const char* key);

// Tool arguments as the model sent them; all-whitespace (some servers send "" for a tool
// without parameters) becomes "{}".
std::string arguments_or_empty_object(std::string arguments);

} // namespace ralph::llm
