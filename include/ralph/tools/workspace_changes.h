#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/tools/isolated_workspace.h"
#include "ralph/tools/process_runner.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ralph::tools {

// What an attempt changed in its workspace, from where it started.
struct WorkspaceChanges {
  int added = 0;   // lines; a binary file counts as one line each way
  int removed = 0; //
  // Every file changed, added or deleted, relative to the repository's top (git) or to the
  // folder (copies), in git's order.
  std::vector<std::string> files;
  std::string patch; // `git diff --binary` (git) or `diff -u` per file (copies)

  int changed_lines() const { return added + removed; }
};

// Commits everything in the worktree `workspace` that git does not ignore (untracked files
// included, ralph's own `.ralph` folders left out) as one commit on its branch, authored by
// ralph, even when nothing changed. Returns the commit id.
Result<std::string> commit_worktree(ProcessRunner& runner, const IsolatedWorkspace& workspace,
                                    const std::string& message, const CancelToken& cancel);

// The patch (`git diff --binary`) from commit `from` to the worktree's files as they are now,
// untracked files included and ralph's `.ralph` folders left out. Made with a scratch index:
// HEAD, the index and the files are left as they are, so an agent at work there sees nothing.
Result<std::string> worktree_patch(ProcessRunner& runner, const IsolatedWorkspace& workspace,
                                   const std::string& from, const CancelToken& cancel);

// A commit of the files of the git work tree at `dir` as they are now (untracked files included,
// ignored ones and ralph's `.ralph` folders left out), on top of HEAD (none in a repository
// without commits), kept under `ref` so that git's garbage collection leaves it. Made with a
// scratch index: HEAD, the index, the files and the branches are left as they are, and no hook
// or fsmonitor of the repository runs. Returns the commit id.
Result<std::string> snapshot_worktree(ProcessRunner& runner, const std::filesystem::path& dir,
                                      const std::string& ref, const std::string& message,
                                      const CancelToken& cancel);

// The changes from commit `from` to commit `to` of the repository at `dir` (renames as a
// deletion and an addition).
Result<WorkspaceChanges> changes_between_commits(ProcessRunner& runner,
                                                 const std::filesystem::path& dir,
                                                 const std::string& from, const std::string& to,
                                                 const CancelToken& cancel);

// The changes from folder `before` to folder `after` (two copies), `.git` and `.ralph` at their
// tops left out; the patch is made by diff(1), run through `runner`.
Result<WorkspaceChanges> changes_between_folders(ProcessRunner& runner,
                                                 const std::filesystem::path& before,
                                                 const std::filesystem::path& after,
                                                 const CancelToken& cancel);

// Applies `from`..`to` of the repository at `dir` (`changes` are that range's) to its checkout
// as one commit on the current branch (or detached HEAD) with `message`, made by the user's git
// identity: the commit holds HEAD plus those changes (a three-way merge when HEAD moved or the
// work tree had uncommitted changes at `from`), the work tree and index get the changed files.
// Nothing is changed when it cannot be done cleanly: an error (kind `io`) says which files
// conflict. Returns the new commit's id.
Result<std::string> apply_as_commit(ProcessRunner& runner, const std::filesystem::path& dir,
                                    const std::string& from, const std::string& to,
                                    const WorkspaceChanges& changes, const std::string& message,
                                    const CancelToken& cancel);

// Copies `changes` (between folders `before` and `after`) into `target`: changed and added files
// copied over, deleted ones removed. Refuses, changing nothing, when a file of `target` is no
// longer as it was in `before` (nor already as in `after`): an error (kind `io`) naming it.
Result<void> apply_folder_changes(const std::filesystem::path& before,
                                  const std::filesystem::path& after,
                                  const WorkspaceChanges& changes,
                                  const std::filesystem::path& target);

// Pushes the worktree's branch to `remote` (a URL or a remote name), as the same branch name,
// forced (a goal's branch is its own). Errors (kind io; usage for a workspace that is a copy)
// name the remote without credentials.
Result<void> push_branch(ProcessRunner& runner, const IsolatedWorkspace& workspace,
                         const std::string& remote, const CancelToken& cancel);

// Applies `patch` (as made by changes_between_commits: `git diff --binary`) to the work tree
// whose top is `dir` (IsolatedWorkspace::root), untracked result files included, the index left
// alone; refuses, changing nothing, when it does not apply (an error, kind io, saying where).
// Restores the last checkpoint of a goal's workspace on the worker that takes the goal over.
Result<void> apply_patch(ProcessRunner& runner, const std::filesystem::path& dir,
                         const std::string& patch, const CancelToken& cancel);

} // namespace ralph::tools
