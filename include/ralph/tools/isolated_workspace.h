#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/tools/process_runner.h"

#include <filesystem>
#include <optional>
#include <string>

namespace ralph::tools {

// A workspace of its own for one goal or one attempt, so that its changes never reach another's:
// a git worktree on a branch of its own when the source is inside a git repository or is a bare
// one (a RepoCache clone), otherwise a copy of the source folder.
struct IsolatedWorkspace {
  std::filesystem::path path; // the source's counterpart (a subfolder when the source is one)
  std::filesystem::path root; // the worktree's top folder, or the copy (then == path)
  bool worktree = false;
  std::string branch; // the worktree's branch; empty for a copy
};

struct IsolationRequest {
  std::filesystem::path source; // the workspace it is made from
  std::filesystem::path path;   // where it goes; must not exist yet
  std::string branch;           // the new branch's name (git only), e.g. "ralph/batch/7"
  // What a worktree starts from: a commit-ish of the source's repository. Empty: the source as it
  // is now, HEAD plus its uncommitted changes to tracked files and its untracked files (not the
  // ignored ones); a bare repository's HEAD.
  std::string ref;
};

// Makes the workspace; the git commands run through `runner`. An error (kind `io`, or `usage`
// for a ref that does not resolve) names what failed and where. A copy leaves out `.git` and the
// store's folder `.ralph` but keeps `.ralph/config.toml`.
Result<IsolatedWorkspace> make_isolated_workspace(ProcessRunner& runner,
                                                  const IsolationRequest& request,
                                                  const CancelToken& cancel);

// The workspace made earlier at `request.path` (after a restart), when it is still there: a
// worktree on `request.branch`, or a copy. Nothing when it is gone.
Result<std::optional<IsolatedWorkspace>> find_isolated_workspace(ProcessRunner& runner,
                                                                 const IsolationRequest& request,
                                                                 const CancelToken& cancel);

// Whether `dir` is inside a git work tree (git is run to ask).
bool in_git_repository(ProcessRunner& runner, const std::filesystem::path& dir,
                       const CancelToken& cancel);

} // namespace ralph::tools
