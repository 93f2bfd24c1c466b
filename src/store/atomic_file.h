#pragma once

#include "ralph/core/error.h"

#include <filesystem>
#include <optional>
#include <string>

// write_file_atomically is declared in ralph/store/trace_writer.h; this is its reading half,
// shared by the trace writer and the memory file.
namespace ralph::store {

// The whole content of `path`; nullopt when it does not exist; an `io` error otherwise.
Result<std::optional<std::string>> read_file_if_exists(const std::filesystem::path& path);

} // namespace ralph::store
