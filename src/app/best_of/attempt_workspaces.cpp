#include "app/best_of/attempt_workspaces.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <fstream>

namespace ralph::app {

namespace fs = std::filesystem;

Result<void> make_workspaces(tools::ProcessRunner& runner, const fs::path& source,
                             Attempts& attempts, std::vector<Candidate>& candidates,
                             const CancelToken& cancel) {
  // Checked before each one: a cancelled git call can look like "not a repository" to the
  // isolation code, which would then copy instead.
  const auto interrupted = [&]() -> Result<void> {
    if (cancel.cancelled()) {
      return fail(ErrorKind::cancelled, "interrupted while making the attempts' workspaces");
    }
    return {};
  };
  if (!attempts.git) {
    TRY(interrupted());
    TRY_ASSIGN(const tools::IsolatedWorkspace base,
               tools::make_isolated_workspace(
                   runner, {.source = source, .path = attempts.dir / "base"}, cancel));
    attempts.base = base.path;
  }
  for (Candidate& candidate : candidates) {
    TRY(interrupted());
    const std::string k = std::to_string(candidate.index);
    const tools::IsolationRequest request{
        .source = attempts.git ? source : attempts.base,
        .path = attempts.dir / k,
        .branch = fmt::format("ralph/attempts/{}/{}", attempts.session_id, k),
        .ref = attempts.start};
    TRY_ASSIGN(candidate.workspace, tools::make_isolated_workspace(runner, request, cancel));
    if (attempts.git && attempts.start.empty()) {
      TRY_ASSIGN(attempts.start,
                 tools::commit_worktree(
                     runner, candidate.workspace,
                     fmt::format("ralph: start of best-of-N session {}", attempts.session_id),
                     cancel));
    }
  }
  return {};
}

Result<void> measure(tools::ProcessRunner& runner, const Attempts& attempts, Candidate& candidate) {
  const CancelToken keep_going;
  tools::WorkspaceChanges changes;
  if (attempts.git) {
    TRY_ASSIGN(candidate.end_commit,
               tools::commit_worktree(runner, candidate.workspace,
                                      fmt::format("ralph: attempt {} of best-of-N session {}",
                                                  candidate.index, attempts.session_id),
                                      keep_going));
    TRY_ASSIGN(changes,
               tools::changes_between_commits(runner, candidate.workspace.root, attempts.start,
                                              candidate.end_commit, keep_going));
  } else {
    TRY_ASSIGN(changes, tools::changes_between_folders(runner, attempts.base,
                                                       candidate.workspace.path, keep_going));
  }
  candidate.diff_file = attempts.dir / fmt::format("{}.diff", candidate.index);
  std::ofstream out(candidate.diff_file, std::ios::binary);
  out << changes.patch;
  if (!out.flush()) {
    return fail(ErrorKind::io, fmt::format("{}: cannot write", candidate.diff_file.string()));
  }
  candidate.changes = std::move(changes);
  return {};
}

Result<std::string> apply_winner(tools::ProcessRunner& runner, const fs::path& source,
                                 const Attempts& attempts, const Candidate& winner,
                                 const std::string& message) {
  if (winner.changes->files.empty()) {
    return std::string();
  }
  if (attempts.git) {
    return tools::apply_as_commit(runner, source, attempts.start, winner.end_commit,
                                  *winner.changes, message, CancelToken());
  }
  TRY(tools::apply_folder_changes(attempts.base, winner.workspace.path, *winner.changes, source));
  return std::string();
}

} // namespace ralph::app
