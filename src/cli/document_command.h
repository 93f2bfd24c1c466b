#pragma once

#include "cli/command_line.h"
#include "cli/run_context.h"

#include "ralph/core/settings.h"

#include <string>

namespace ralph::cli {

// `ralph qa` and `ralph task`: the document is memory-mapped and explored in the Lua sandbox by
// the agent's model (RLM); the answer is checked (QA: hard checks and the evidence judge; task:
// hard checks and the task judge) under the outer loop, recorded like every run.
Result<int> document_command(const RunArgs& args, DocumentMode mode);

// Runs the context's `config.document` (its path and mode) under the outer loop, as a new
// session or as the resumed one; returns the exit code.
Result<int> run_document(RunContext& context, const std::string& banner);

} // namespace ralph::cli
