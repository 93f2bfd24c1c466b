#pragma once

#include "ralph/core/error.h"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
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

} // namespace ralph
