#pragma once

#include "cli/command_line.h"

#include "ralph/core/config.h"
#include "ralph/llm/provider.h"

#include <filesystem>
#include <string>

namespace ralph::cli {

// `ralph run`: loads the configuration (defaults, user file, workspace file, --config,
// environment, flags), builds the provider and runs the agent on the goal.
int run_command(const RunArgs& args);

// Runs the built-in agent on `args.goal` in `workspace` with `provider`, rendering progress and
// printing the result; returns the exit code. `banner` opens the progress output.
int run_agent(const RunArgs& args, const Config& config, llm::Provider& provider,
              const std::filesystem::path& workspace, const std::string& banner);

} // namespace ralph::cli
