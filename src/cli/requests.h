#pragma once

#include "cli/command_line.h"

#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/session/environment.h"
#include "ralph/session/session.h"

#include <filesystem>

namespace ralph::cli {

// The configuration of a command run in `workspace`: `defaults` < the user's file < the
// workspace's < --config < the environment < the command's flags.
Result<Config> load_config(const RunArgs& args, const std::filesystem::path& workspace,
                           const session::Environment& env, Config defaults = {});

// Where --events and --out ask a session's events and traces to go.
session::Outputs outputs_of(const RunArgs& args);

// `ralph run`, `qa` and `task` as a request: the goal, the workspace (--workspace or the current
// directory), the configuration loaded once, the outputs.
Result<session::SessionRequest> request_from(const RunArgs& args, const session::Environment& env);

} // namespace ralph::cli
