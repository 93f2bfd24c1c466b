#pragma once

#include "app/best_of/attempts.h"

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/tools/process_runner.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ralph::app {

// Makes every attempt's workspace: in git, the first a worktree of the source as it is (its
// uncommitted and untracked files committed as its start), the others worktrees of that start;
// outside git, a copy of the source kept untouched as the base, and a copy of it per attempt.
// Stops before the next one when `cancel` fires (an error, kind cancelled); what was made stays.
Result<void> make_workspaces(tools::ProcessRunner& runner, const std::filesystem::path& source,
                             Attempts& attempts, std::vector<Candidate>& candidates,
                             const CancelToken& cancel);

// Records what the attempt changed: its work committed on its branch (git), its changes against
// the start, and its patch beside its folder (<k>.diff). Not cancellable: after a cancel the work
// is kept all the same.
Result<void> measure(tools::ProcessRunner& runner, const Attempts& attempts, Candidate& candidate);

// Applies the winner's measured changes to the source: one commit with `message` on its current
// branch (git; returns its id), or its files copied over (returns empty). Nothing is applied when
// that cannot be done cleanly: an error naming the files in the way. Not cancellable, so that it
// is never left half done.
Result<std::string> apply_winner(tools::ProcessRunner& runner, const std::filesystem::path& source,
                                 const Attempts& attempts, const Candidate& winner,
                                 const std::string& message);

} // namespace ralph::app
