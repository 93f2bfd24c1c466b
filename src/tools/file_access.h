#pragma once

#include "ralph/core/error.h"

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::tools {

// How much of a file's start is looked at to decide that it is binary.
inline constexpr std::size_t k_binary_probe_bytes = 8192;

// Whether `head` (the start of a file) looks binary: it holds a NUL byte, which text never does.
bool looks_binary(std::string_view head);

// The whole content of a regular file, refusing files over `max_bytes`. Errors (kind `tool`)
// name `shown` (the path as the model knows it).
Result<std::string> read_small_file(const std::filesystem::path& path, std::size_t max_bytes,
                                    std::string_view shown);

// Replaces `path` with `content` so readers see the old or the new file, never a mix: the
// content goes to a temporary file in the same directory, which is then renamed over `path`. An
// existing file keeps its permission bits. Parent directories must exist.
Result<void> write_file_atomically(const std::filesystem::path& path, std::string_view content,
                                   std::string_view shown);

// The entries of `dir` sorted by name, leaving out .git and .ralph (version control and ralph's
// own state: noise for the model). `readable` is false when the directory could not be read.
std::vector<std::filesystem::directory_entry> sorted_entries(const std::filesystem::path& dir,
                                                             bool& readable);

// "812 bytes", "14.2 KB", "3.1 MB".
std::string describe_size(std::uint64_t bytes);

} // namespace ralph::tools
