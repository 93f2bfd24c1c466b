#pragma once

#include "cli/command_line.h"

#include "ralph/core/error.h"

namespace ralph::cli {

// `ralph sessions list | show | resume | export | rm | prune`. Returns the exit code.
Result<int> sessions_command(const ParsedCommand& command);

} // namespace ralph::cli
