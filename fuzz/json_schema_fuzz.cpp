// JSON Schema: a schema (before the first NUL) is compiled or refused with a config error, and a
// value (after it) is validated against a compiled one within the error limit, never throwing.
#include "fuzz_support.h"

#include "ralph/core/json.h"
#include "ralph/verify/json_schema.h"

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ralph;
  const auto [schema_text, value_text] = fuzz::split_once(fuzz::as_text(data, size), '\0');
  auto schema = verify::JsonSchema::compile(schema_text);
  if (!schema) {
    fuzz::check(schema.error().kind == ErrorKind::config, "a schema error of another kind");
    return 0;
  }
  const auto value = parse_json(value_text, "value");
  if (!value) {
    return 0;
  }
  for (const std::size_t limit : {std::size_t{1}, std::size_t{3}}) {
    const auto problems = schema->validate(*value, limit);
    fuzz::check(problems.size() <= limit, "more problems than asked for");
    for (const std::string& problem : problems) {
      fuzz::check(!problem.empty(), "an empty problem");
    }
  }
  return 0;
}
