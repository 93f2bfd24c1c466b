#pragma once

#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>

// Shared by compiling (json_schema.cpp) and validating (json_schema_validate.cpp) a JsonSchema.
namespace ralph::verify {

namespace detail {

// The parsed schema and what compiling it found out. Keyed by the address of the schema object
// holding the keyword: the tree never changes after compile, so the addresses stay valid.
struct CompiledSchema {
  nlohmann::json root;
  std::map<const nlohmann::json*, std::unique_ptr<RE2>> patterns;
  std::map<const nlohmann::json*, const nlohmann::json*> refs;
};

} // namespace detail

// Deeper than any real schema or answer; stops a $ref cycle that consumes no data.
inline constexpr int k_max_schema_depth = 128;

// `pointer` extended by `key`, escaped as JSON pointers require ("a/b" -> "/a~1b").
std::string pointer_child(const std::string& pointer, std::string_view key);

// How a pointer is shown in messages: itself, or "(root)" for the empty pointer.
std::string pointer_shown(const std::string& pointer);

// An integer, or a float with an integral value (2.0 is an integer to JSON Schema).
bool is_integral(const nlohmann::json& value);

} // namespace ralph::verify
