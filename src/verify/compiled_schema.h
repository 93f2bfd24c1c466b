#pragma once

#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

// Shared by compiling (json_schema.cpp) and validating (json_schema_validate.cpp) a JsonSchema.
namespace ralph::verify {

namespace detail {

// The parsed schema and what compiling it found out. Keyed by the address of a node in
// `documents`: the trees never change after compile and a deque never moves its elements, so the
// addresses stay valid.
struct CompiledSchema {
  // The schema compiled first, then each document a $ref led to (the meta-schema, a document the
  // caller supplied).
  std::deque<nlohmann::json> documents;
  // Regexes by the node they serve: a "pattern" string, or a schema under "patternProperties".
  std::map<const nlohmann::json*, std::unique_ptr<RE2>> patterns;
  // The schema each schema holding a $ref stands for.
  std::map<const nlohmann::json*, const nlohmann::json*> refs;
  // The schemas those references lead to: the only ones a validation can meet twice per value.
  std::set<const nlohmann::json*> ref_targets;

  const nlohmann::json& root() const { return documents.front(); }
};

} // namespace detail

// Deeper than any real schema or answer; stops recursion that consumes the value, so the stack
// stays bounded on a deeply nested answer.
inline constexpr int k_max_schema_depth = 128;

// Schema-and-value pairs one validation may evaluate. Each pair is evaluated at most once (results
// are remembered), so only a huge answer against a large schema gets near it.
inline constexpr std::size_t k_max_validation_steps = 1'000'000;

// `pointer` extended by `key`, escaped as JSON pointers require ("a/b" -> "/a~1b").
std::string pointer_child(const std::string& pointer, std::string_view key);

// How a pointer is shown in messages: itself, or "(root)" for the empty pointer.
std::string pointer_shown(const std::string& pointer);

// An integer, or a float with an integral value (2.0 is an integer to JSON Schema).
bool is_integral(const nlohmann::json& value);

} // namespace ralph::verify
