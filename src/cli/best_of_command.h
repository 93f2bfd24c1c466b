#pragma once

#include "cli/command_line.h"

#include "ralph/core/error.h"

namespace ralph::cli {

// `ralph run --parallel-attempts N`: the command line as a best-of-N request to
// app::run_best_of (N attempts of the goal at once, each in its own worktree or copy, the best
// passing one applied), its progress and result shown (best_of_view.h), Ctrl-C cancelling it.
// Returns the exit code: the winner's status, or when none passed the best one's; 2 when
// applying was refused.
Result<int> best_of_command(const RunArgs& args);

} // namespace ralph::cli
