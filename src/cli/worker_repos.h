#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/tools/isolated_workspace.h"
#include "ralph/tools/process_runner.h"

#include <filesystem>
#include <string>

namespace ralph::cli {

// The two places `ralph worker` reaches a repository's remote, together so that they can give
// way to a shared repository cache and branch push.

// A local clone of `url` under `cache_dir` (one folder per URL), cloned the first time and
// fetched after that, so a ref pushed since is there. Used by one thread.
Result<std::filesystem::path> worker_clone_of(tools::ProcessRunner& runner,
                                              const std::filesystem::path& cache_dir,
                                              const std::string& url, const CancelToken& cancel);

// Pushes the worktree's branch to `remote` (a URL, or a remote of the clone), replacing what
// an earlier run of the goal pushed there.
Result<void> worker_push_branch(tools::ProcessRunner& runner,
                                const tools::IsolatedWorkspace& workspace,
                                const std::string& remote, const CancelToken& cancel);

} // namespace ralph::cli
