#pragma once

// An agent CLI's settings file, read and replaced whole (the hook and MCP installers).

#include "ralph/core/error.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace ralph::cli {

// The file's text; nullopt when it does not exist; a config error naming it when it cannot be
// read.
Result<std::optional<std::string>> read_settings_text(const std::filesystem::path& file);

// The file as JSON, its keys in their order: an empty object when it does not exist or is
// blank; a config error naming it when it cannot be read or is not a JSON object.
Result<nlohmann::ordered_json> read_json_settings(const std::filesystem::path& file);

// Writes `text` to a temporary file beside `file`, then renames it over `file`: a reader sees
// the old file or the new one, never half of one. The old file's permissions are kept; the
// folder is made when missing.
Result<void> write_atomically(const std::filesystem::path& file, const std::string& text);

} // namespace ralph::cli
