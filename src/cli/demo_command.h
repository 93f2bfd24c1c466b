#pragma once

#include "cli/command_line.h"

#include "ralph/core/error.h"

namespace ralph::cli {

// `ralph demo`: the built-in agent on a scripted stand-in model (no key, no network) in a fresh
// temporary workspace, with real tools. Returns the exit code.
Result<int> demo_command(const RunArgs& args);

} // namespace ralph::cli
