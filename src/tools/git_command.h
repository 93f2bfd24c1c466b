#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/tools/process_runner.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ralph::tools {

// One git command in `dir`, run through `runner`.
struct GitCommand {
  std::vector<std::string> args;                        // after `git -C dir`
  std::vector<std::pair<std::string, std::string>> env; // added to the child's environment
  std::string input;                                    // its stdin
  std::chrono::milliseconds timeout{120'000}; // clones and fetches of large repositories take more
  bool trim = true; // false: stdout exactly as printed (a patch's last blank line matters)
};

// Runs git; its stdout (trimmed unless the command says not to), or an error (kind `io`) quoting
// the first line it printed on stderr and where it ran.
Result<std::string> git(ProcessRunner& runner, const std::filesystem::path& dir,
                        const GitCommand& command, const CancelToken& cancel);

// The same, for the common case of arguments only.
Result<std::string> git(ProcessRunner& runner, const std::filesystem::path& dir,
                        std::vector<std::string> args, const CancelToken& cancel);

} // namespace ralph::tools
