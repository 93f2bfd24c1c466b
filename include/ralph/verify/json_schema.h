#pragma once

#include "ralph/core/error.h"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ralph::verify {

namespace detail {
struct CompiledSchema;
} // namespace detail

// Schema documents a $ref may name besides the schema compiled, by absolute URI without fragment
// ("http://example.com/item.json"): nothing is ever fetched.
using SchemaDocuments = std::map<std::string, std::string, std::less<>>;

// A JSON Schema draft 7 validator with no dependency beyond nlohmann and RE2. It applies the
// whole draft 7 validation vocabulary: type, enum, const, multipleOf, maximum, exclusiveMaximum,
// minimum, exclusiveMinimum (draft 4's boolean forms too), maxLength, minLength (in code points),
// pattern (ECMA-262 as far as RE2 goes, unanchored), items, additionalItems, maxItems, minItems,
// uniqueItems, contains, maxProperties, minProperties, required, properties, patternProperties,
// additionalProperties, dependencies, propertyNames, if/then/else, allOf, anyOf, oneOf, not, and
// $ref (JSON pointers with % and ~ escapes, $id, "#name" $ids; keywords beside a $ref are ignored,
// as draft 7 says), and format, checked for date-time, date, time, email, idn-email, hostname,
// ipv4, ipv6, uri, uri-reference, iri, iri-reference, uri-template, json-pointer,
// relative-json-pointer, regex and uuid (contentMediaType and contentEncoding are annotations).
// A $ref to the draft-07 meta-schema works; other documents only when given to compile().
// Refused when compiled: a malformed keyword, a pattern RE2 cannot run, a $ref leading nowhere,
// a format it cannot check, a keyword of another draft (dependentRequired, prefixItems,
// unevaluatedProperties, ...) and a $schema other than draft 7, 6 or 4. Other unknown keywords
// are annotations (title, ...).
// Immutable once compiled; copies share it; validate() may run on many threads at once.
class JsonSchema {
public:
  // Parses `schema_text` and checks it up front, with every document its $refs lead to: JSON, an
  // object or boolean, each keyword applicable and well formed, each pattern a valid RE2, each
  // $ref resolvable. Errors are ErrorKind::config and name the JSON pointer of the bad keyword.
  static Result<JsonSchema> compile(std::string_view schema_text,
                                    const SchemaDocuments& documents = {});

  // Every way `value` breaks the schema, up to `max_errors`, each led by the JSON pointer of the
  // failing value: "/items/2/name: expected a string, found a number". Empty when it conforms.
  // A `max_errors` of 0 counts as 1. A value that cannot be decided (the schema refers back to
  // itself without consuming any of it, or the work exceeds a bound) gets one error saying so,
  // never a pass.
  std::vector<std::string> validate(const nlohmann::json& value, std::size_t max_errors = 20) const;

private:
  explicit JsonSchema(std::shared_ptr<const detail::CompiledSchema> compiled)
      : m_compiled(std::move(compiled)) {}

  std::shared_ptr<const detail::CompiledSchema> m_compiled;
};

} // namespace ralph::verify
