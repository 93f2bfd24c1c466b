#pragma once

#include "cli/command_line.h"
#include "cli/run_report.h"
#include "cli/session_setup.h"
#include "cli/verifier_setup.h"

#include "ralph/agent/agent.h"
#include "ralph/core/config.h"
#include "ralph/llm/provider.h"

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

namespace ralph::cli {

// `ralph run`: loads the configuration (defaults, user file, workspace file, --config,
// environment, flags), builds the provider and runs the agent on the goal.
int run_command(const RunArgs& args);

// Runs the built-in agent on `args.goal` in `workspace` with `provider` under the outer loop,
// recording it as `session` says, rendering progress and printing the result; returns the exit
// code. `banner` opens the progress output.
int run_agent(const RunArgs& args, const Config& config, llm::Provider& provider,
              const std::filesystem::path& workspace, const std::string& banner,
              SessionContext session);

// What a front door runs under the outer loop: its agent and verifiers, and how it shows the
// answer.
struct LoopRun {
  agent::Agent& agent;
  VerifierSetup verifiers;
  bool stream_text = true; // the model's text goes to stdout as it arrives
  // Prints the final answer for a person; null: print_answer's default.
  std::function<void(std::FILE*, const RunReport&)> print_answer;
};

// Runs `run.agent` on `args.goal` (or the resumed session) under the outer loop with
// `run.verifiers`, recording, rendering and reporting as every run does; returns the exit code.
int run_outer_loop(const RunArgs& args, const Config& config,
                   const std::filesystem::path& workspace, const std::string& banner,
                   SessionContext session, const CancelToken& cancel, LoopRun& run);

// The configuration for a run in `workspace`: defaults < user file < workspace file < --config <
// environment < flags. `base` replaces the defaults (a resumed session's recorded configuration).
Result<Config> load_config(const RunArgs& args, const std::filesystem::path& workspace,
                           const Config& base = Config());

// `--workspace DIR` (or the current directory), canonical; a usage error when not a directory.
Result<std::filesystem::path> resolve_workspace(const std::string& dir);

// A cost budget is only a budget when every model it counts has a price: a config error naming
// the first model without one.
Result<void> check_prices(const Config& config);

// Prints "ralph: error: MESSAGE" and returns the exit code for the error's kind.
int print_error(const Error& error);

// Opens libcurl when the configuration talks HTTP, then builds the agent's provider and runs.
int run_with_provider(const RunArgs& args, const Config& config,
                      const std::filesystem::path& workspace, const std::string& banner,
                      SessionContext session);

} // namespace ralph::cli
