#pragma once

#include "cli/command_line.h"

#include "ralph/core/error.h"

namespace ralph::cli {

// `ralph run --parallel-attempts N`: N attempts of the goal at once on one engine, each a whole
// `ralph run` session (kind run, its parent the best-of-N session) in its own git worktree on
// branch ralph/attempts/<session>/<k> (or a copy) under .ralph/attempts/<session>/<k>; the
// verifiers rank them (candidate_ranking.h), the best passing one is applied to the workspace, and
// every attempt is kept with its diff (.ralph/attempts/<session>/<k>.diff). Returns the exit code:
// the winner's status, or when none passed the best one's; 2 when applying was refused.
Result<int> best_of_command(const RunArgs& args);

} // namespace ralph::cli
