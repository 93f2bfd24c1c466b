#pragma once

#include "cli/command_line.h"

#include "ralph/core/error.h"
#include "ralph/core/settings.h"

namespace ralph::cli {

// `ralph run`: the agent the configuration names (the built-in agent on its model, or an agent
// CLI) works on the goal under the outer loop; `--parallel-attempts N` runs best of N. Returns the
// exit code.
Result<int> run_command(const RunArgs& args);

// `ralph qa` and `ralph task`: the document is memory-mapped and explored in the Lua sandbox by
// the agent's model (RLM); the answer is checked (QA: hard checks and the evidence judge; task:
// hard checks and the task judge) under the outer loop, recorded like every run.
Result<int> document_command(const RunArgs& args, DocumentMode mode);

// `ralph demo`: the built-in agent on a scripted stand-in model (no key, no network) in a fresh
// temporary workspace, with real tools. Returns the exit code.
Result<int> demo_command(const RunArgs& args);

} // namespace ralph::cli
