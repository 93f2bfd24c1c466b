#pragma once

#include "ralph/core/error.h"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ralph::verify {

namespace detail {
struct CompiledSchema;
} // namespace detail

// A JSON Schema validator for the subset answer checks need, with no dependency beyond
// nlohmann and RE2. Keywords understood:
//   type (a name or an array of names; "integer" accepts 2.0), enum, const,
//   properties, required, additionalProperties (boolean or schema),
//   items (a schema, or an array of schemas for positions), minItems, maxItems, uniqueItems,
//   minLength, maxLength (in code points), pattern (RE2 syntax, unanchored),
//   minimum, maximum, exclusiveMinimum, exclusiveMaximum (numbers, or draft-4 booleans),
//   anyOf, oneOf, allOf, not,
//   $ref to a local JSON pointer such as "#/definitions/x", "#/$defs/x" or "#"
//   (keywords beside a $ref apply too), definitions and $defs as reference targets.
// Every other keyword (format, patternProperties, multipleOf, $schema, title, ...) is ignored.
// Immutable once compiled; copies share it; validate() may run on many threads at once.
class JsonSchema {
public:
  // Parses `schema_text` and checks it up front: JSON, an object or boolean, each understood
  // keyword well formed, each pattern a valid RE2, each $ref resolvable. Errors are
  // ErrorKind::config and name the JSON pointer of the bad keyword.
  static Result<JsonSchema> compile(std::string_view schema_text);

  // Every way `value` breaks the schema, up to `max_errors`, each led by the JSON pointer of the
  // failing value: "/items/2/name: expected a string, found a number". Empty when it conforms.
  // A `max_errors` of 0 counts as 1.
  std::vector<std::string> validate(const nlohmann::json& value, std::size_t max_errors = 20) const;

private:
  explicit JsonSchema(std::shared_ptr<const detail::CompiledSchema> compiled)
      : m_compiled(std::move(compiled)) {}

  std::shared_ptr<const detail::CompiledSchema> m_compiled;
};

} // namespace ralph::verify
