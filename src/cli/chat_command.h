#pragma once

#include "cli/command_line.h"

#include "ralph/core/error.h"

namespace ralph::cli {

// `ralph chat`: an interactive session with the agent; `/goal TEXT` works on TEXT under the outer
// loop, verifier-first. Reads one line per turn when stdin is not a terminal. Returns the exit
// code: 0 when the person left (Ctrl-D, /exit, end of input), 130 on SIGTERM.
Result<int> chat_command(const RunArgs& args, const ChatArgs& chat);

} // namespace ralph::cli
