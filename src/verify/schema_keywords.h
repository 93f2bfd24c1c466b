#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>

// Draft 7's keywords as JsonSchema's compiler sees them: where subschemas sit, and whether the
// value of every other keyword is well formed.
namespace ralph::verify {

enum class KeywordKind {
  schema,          // one subschema: not, if, then, else, contains, additional*, propertyNames
  schema_or_array, // items: one schema, or an array of schemas by position
  schema_array,    // a non-empty array of schemas: allOf, anyOf, oneOf
  schema_map,      // schemas by name: properties, patternProperties, definitions (and $defs)
  dependencies,    // names -> a schema or an array of property names
  pattern,         // a regular expression
  other,           // a value checked by keyword_problem
};

KeywordKind keyword_kind(std::string_view key);

// The keyword that sets a base URI in `root`'s schemas: "id" when its $schema names draft 4,
// "$id" otherwise.
std::string_view id_keyword(const nlohmann::json& root);

// What is wrong with `value` as the value of keyword `key` (not one of the subschema kinds), or
// nullopt when it is fine. Keywords of other drafts that draft 7 lacks are refused, as is a
// $schema naming a draft with other meanings; unknown keywords are annotations and pass.
std::optional<std::string> keyword_problem(const std::string& key, const nlohmann::json& value);

} // namespace ralph::verify
