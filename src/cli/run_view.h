#pragma once

#include "cli/command_line.h"

#include "ralph/core/error.h"
#include "ralph/session/runtime.h"
#include "ralph/session/session.h"

#include <string>

namespace ralph::cli {

// Runs `session` for a person or a script: the banner and the session's warnings first, every
// event on the terminal as it happens (model text to stdout, progress to stderr), then the result:
// the --json object, or the answer (a QA answer with where each quote occurs) and a summary line.
// Returns the exit code of the run's status; an error is what kept it from starting.
Result<int> run_shown(session::Runtime& runtime, session::Session& session, const RunArgs& args,
                      const std::string& banner);

} // namespace ralph::cli
