#pragma once

#include "cli/command_line.h"
#include "cli/session_setup.h"

#include "ralph/core/config.h"

#include <filesystem>

namespace ralph::cli {

enum class DocumentMode { qa, task };

// `ralph qa` and `ralph task`: the document is memory-mapped and explored in the Lua sandbox by
// the agent's model (RLM); the answer is checked (QA: hard checks and the evidence judge; task:
// hard checks and the task judge) under the outer loop, recorded like every run.
int document_command(const RunArgs& args, DocumentMode mode);

// Runs `config.document` (its path and mode) under the outer loop, as a new session or as the
// resumed one `session` holds; returns the exit code.
int run_document(const RunArgs& args, Config config, const std::filesystem::path& workspace,
                 const std::string& banner, SessionContext session);

} // namespace ralph::cli
