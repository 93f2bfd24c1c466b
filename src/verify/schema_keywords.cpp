#include "schema_keywords.h"

#include "compiled_schema.h"
#include "draft7_metaschema.h"
#include "schema_formats.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <utility>

namespace ralph::verify {
namespace {

using nlohmann::json;

bool is_type_name(const json& name) {
  static const std::set<std::string, std::less<>> names = {"null",   "boolean", "object", "array",
                                                           "number", "integer", "string"};
  return name.is_string() && names.count(name.get<std::string>()) > 0;
}

// Keywords of other drafts that draft 7 would ignore: a schema using them means something draft 7
// cannot say, so it is refused rather than half applied. With the draft 7 way where there is one.
constexpr std::array<std::pair<std::string_view, std::string_view>, 16> k_foreign = {{
    {"dependentRequired", "2019-09; draft 7 spells it \"dependencies\" with an array"},
    {"dependentSchemas", "2019-09; draft 7 spells it \"dependencies\" with a schema"},
    {"prefixItems", "2020-12; draft 7 spells it \"items\" with an array"},
    {"unevaluatedProperties", "2019-09"},
    {"unevaluatedItems", "2019-09"},
    {"minContains", "2019-09"},
    {"maxContains", "2019-09"},
    {"contentSchema", "2019-09"},
    {"$anchor", "2019-09; draft 7 spells it \"$id\": \"#name\""},
    {"$recursiveRef", "2019-09"},
    {"$recursiveAnchor", "2019-09"},
    {"$dynamicRef", "2020-12"},
    {"$dynamicAnchor", "2020-12"},
    {"$vocabulary", "2019-09"},
    {"divisibleBy", "draft 3; draft 7 spells it \"multipleOf\""},
    {"extends", "draft 3; draft 7 spells it \"allOf\""},
}};

// A $schema URI without its empty fragment and with http for https.
std::string dialect(std::string uri) {
  if (!uri.empty() && uri.back() == '#') {
    uri.pop_back();
  }
  if (uri.rfind("https://", 0) == 0) {
    uri.erase(4, 1);
  }
  return uri;
}

constexpr std::string_view k_draft4 = "http://json-schema.org/draft-04/schema";

// Draft 7 and the drafts whose schemas mean the same under its rules (draft 4's boolean
// exclusiveMinimum/exclusiveMaximum and its "id" are understood too).
bool is_accepted_dialect(const std::string& uri) {
  const std::string name = dialect(uri);
  return name == k_draft7_metaschema_uri || name == "http://json-schema.org/draft-06/schema" ||
         name == k_draft4;
}

bool is_non_negative_integer(const json& value) {
  return is_integral(value) && value.get<double>() >= 0;
}

} // namespace

KeywordKind keyword_kind(std::string_view key) {
  static const std::set<std::string_view> single = {
      "not",          "if", "then", "else", "contains", "additionalItems", "additionalProperties",
      "propertyNames"};
  if (single.count(key) > 0) {
    return KeywordKind::schema;
  }
  if (key == "items") {
    return KeywordKind::schema_or_array;
  }
  if (key == "allOf" || key == "anyOf" || key == "oneOf") {
    return KeywordKind::schema_array;
  }
  if (key == "properties" || key == "patternProperties" || key == "definitions" || key == "$defs") {
    return KeywordKind::schema_map;
  }
  if (key == "dependencies") {
    return KeywordKind::dependencies;
  }
  return key == "pattern" ? KeywordKind::pattern : KeywordKind::other;
}

std::string_view id_keyword(const json& root) {
  const auto schema = root.is_object() ? root.find("$schema") : root.end();
  const bool draft4 = schema != root.end() && schema->is_string() &&
                      dialect(schema->get<std::string>()) == k_draft4;
  return draft4 ? "id" : "$id";
}

std::optional<std::string> keyword_problem(const std::string& key, const json& value) {
  if (key == "type") {
    const bool ok = is_type_name(value) || (value.is_array() && !value.empty() &&
                                            std::all_of(value.begin(), value.end(), is_type_name));
    return ok ? std::nullopt
              : std::optional<std::string>("expected a type name (null, boolean, object, array, "
                                           "number, integer, string) or an array of them");
  }
  if (key == "required") {
    const bool ok = value.is_array() && std::all_of(value.begin(), value.end(),
                                                    [](auto& name) { return name.is_string(); });
    return ok ? std::nullopt : std::optional<std::string>("expected an array of property names");
  }
  if (key == "enum") {
    return value.is_array() ? std::nullopt
                            : std::optional<std::string>("expected an array of values");
  }
  if (key == "minItems" || key == "maxItems" || key == "minLength" || key == "maxLength" ||
      key == "minProperties" || key == "maxProperties") {
    return is_non_negative_integer(value)
               ? std::nullopt
               : std::optional<std::string>("expected a non-negative integer");
  }
  if (key == "minimum" || key == "maximum") {
    return value.is_number() ? std::nullopt : std::optional<std::string>("expected a number");
  }
  if (key == "exclusiveMinimum" || key == "exclusiveMaximum") {
    return value.is_number() || value.is_boolean()
               ? std::nullopt
               : std::optional<std::string>("expected a number");
  }
  if (key == "multipleOf") {
    return value.is_number() && value.get<double>() > 0
               ? std::nullopt
               : std::optional<std::string>("expected a number greater than 0");
  }
  if (key == "uniqueItems") {
    return value.is_boolean() ? std::nullopt : std::optional<std::string>("expected true or false");
  }
  if (key == "format") {
    if (value.is_string() && is_checked_format(value.get<std::string>())) {
      return std::nullopt;
    }
    return fmt::format("ralph cannot check the format {} (it checks {})", value.dump(),
                       checked_formats());
  }
  if (key == "contentMediaType" || key == "contentEncoding") {
    return value.is_string() ? std::nullopt : std::optional<std::string>("expected a string");
  }
  if (key == "$schema") {
    if (value.is_string() && is_accepted_dialect(value.get<std::string>())) {
      return std::nullopt;
    }
    return fmt::format("ralph applies JSON Schema draft 7 (and reads draft 6 and 4 schemas by "
                       "its rules), not {}: use \"http://json-schema.org/draft-07/schema#\"",
                       value.dump());
  }
  const auto foreign = std::find_if(k_foreign.begin(), k_foreign.end(),
                                    [&](const auto& entry) { return entry.first == key; });
  if (foreign != k_foreign.end()) {
    return fmt::format("\"{}\" is not a draft 7 keyword (it is from {}), and ralph applies "
                       "draft 7 only",
                       key, foreign->second);
  }
  return std::nullopt;
}

} // namespace ralph::verify
