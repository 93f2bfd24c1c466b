#pragma once

#include "ralph/core/error.h"

#include <string>
#include <string_view>
#include <vector>

namespace ralph {

// Whether the TOML document `text` (named `source` in errors) defines the key `path` (a table,
// an inline table or a value, however it was written: `[a.b]`, `a.b = ...`, `a = {b = ...}`).
// A document that does not parse is a config error naming source, line and column.
Result<bool> toml_defines(std::string_view text, const std::string& source,
                          const std::vector<std::string>& path);

} // namespace ralph
