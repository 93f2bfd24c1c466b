#pragma once

#include "ralph/core/error.h"

#include <nlohmann/json_fwd.hpp>

#include <string_view>

namespace ralph {

// Parses untrusted JSON text without throwing. On failure the error (kind `parse`) names `what`
// (e.g. "OpenAI stream chunk") and the byte offset where parsing stopped.
Result<nlohmann::json> parse_json(std::string_view text, std::string_view what);

} // namespace ralph
