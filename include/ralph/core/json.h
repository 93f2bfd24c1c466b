#pragma once

#include "ralph/core/error.h"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ralph {

// The deepest nesting of arrays and objects parse_json() accepts. nlohmann's printer, copies
// and comparisons recurse once per level, so a value nested ~70,000 deep overflows the stack
// wherever it is later used; no real tool call, schema or provider body comes near 512 levels,
// and 512 levels stay far inside the smallest thread stack ralph runs JSON code on.
inline constexpr std::size_t k_max_json_depth = 512;

// Parses untrusted JSON text; never throws (but std::bad_alloc). On failure the error (kind
// `parse`) names `what` (e.g. "OpenAI stream chunk") and the byte offset where parsing stopped;
// a number too large for a double (1e999) and nesting deeper than k_max_json_depth are malformed
// too, so nothing deep is ever built.
Result<nlohmann::json> parse_json(std::string_view text, std::string_view what);

// Whether parse_json() would accept `text`, checked without building the value.
bool accepts_json(std::string_view text);

// Non-throwing reads of untrusted JSON (a model server's body, an agent's stream, a record a
// damaged store hands back): a missing key, a value that is not an object, or a member of the
// wrong type reads as absent. nlohmann's value() and get<T>() throw on a wrong type, and a
// float outside an integer's range converts with undefined behaviour.

// The member `key` of `value` when `value` is an object that has it (null included), else nullptr.
const nlohmann::json* member(const nlohmann::json& value, std::string_view key);
// The member as a string, or empty.
std::string_view string_member(const nlohmann::json& value, std::string_view key);
// The member as an integer (floats truncated when within range), or nullopt.
std::optional<std::int64_t> int_member(const nlohmann::json& value, std::string_view key);
// int_member() clamped to [low, high]; `fallback` when absent.
int int_member_or(const nlohmann::json& value, std::string_view key, int fallback, int low,
                  int high);
// The member as a bool, or `fallback`.
bool bool_member(const nlohmann::json& value, std::string_view key, bool fallback);
// The member's elements when it is an array, else none.
std::span<const nlohmann::json> array_member(const nlohmann::json& value, std::string_view key);

// A number that may be unknown, for writing: null when it is, never a made-up 0.
nlohmann::json int_or_null(const std::optional<int>& value);

} // namespace ralph
