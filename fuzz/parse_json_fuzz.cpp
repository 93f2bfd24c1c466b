// parse_json: never throws, never builds a value nested deeper than k_max_json_depth, and what
// it returns prints and parses back to itself.
#include "fuzz_support.h"

#include "ralph/core/json.h"

#include <nlohmann/json.hpp>

namespace {

std::size_t depth_of(const nlohmann::json& value) {
  std::size_t deepest = 0;
  if (value.is_structured()) {
    for (const auto& item : value) {
      deepest = std::max(deepest, depth_of(item));
    }
    return deepest + 1;
  }
  return 0;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ralph;
  const auto value = parse_json(fuzz::as_text(data, size), "input");
  if (!value) {
    fuzz::check(value.error().kind == ErrorKind::parse, "a JSON error of another kind");
    return 0;
  }
  fuzz::check(depth_of(*value) <= k_max_json_depth, "a value nested too deep");
  const auto again = parse_json(value->dump(), "printed");
  fuzz::check(again.has_value() && *again == *value, "a value changed on printing");
  return 0;
}
