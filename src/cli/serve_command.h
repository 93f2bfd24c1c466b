#pragma once

#include "cli/command_line.h"

#include "ralph/core/error.h"

namespace ralph::cli {

// `ralph serve`: the API, live events and web UI (docs/manual/serve.md) until SIGINT or SIGTERM.
Result<int> serve_command(const RunArgs& args, const ServeArgs& serve);

} // namespace ralph::cli
