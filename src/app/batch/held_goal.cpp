#include "app/batch/held_goal.h"

#include "ralph/core/json.h"
#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/tools/workspace_changes.h"

#include <fmt/format.h>

namespace ralph::app {

namespace fs = std::filesystem;

Result<void> make_goal_workspace(HeldGoal& held, const fs::path& workdir, tools::RepoCache& repos,
                                 tools::ProcessRunner& runner) {
  const fs::path path = workdir / "goals" / held.row.batch / held.goal.id;
  std::error_code ec;
  if (held.goal.repo_url.empty()) {
    fs::create_directories(path, ec);
    if (ec) {
      return fail(ErrorKind::io, fmt::format("{}: {}", path.string(), ec.message()));
    }
    held.workspace = path;
    return {};
  }
  // Fetched for every goal whose ref names a branch: a worker that runs for days starts each goal
  // from the branch as it is then.
  // Taken over from a worker that saved a checkpoint: its base commit, then its changes, so the
  // resumed session finds the files its record says it wrote (the ref may have moved since).
  const auto checkpoint = parse_json(held.row.checkpoint, "checkpoint").value_or(nlohmann::json());
  const std::string base(string_member(checkpoint, "base"));
  const bool restore = !base.empty();
  const std::string ref = restore ? base : held.goal.ref;
  TRY_ASSIGN(const fs::path source, repos.clone_of(runner, held.goal.repo_url, ref, held.cancel));
  const tools::IsolationRequest request{
      .source = source,
      .path = path,
      .branch = fmt::format("ralph/queue/{}/{}", held.row.batch, held.goal.id),
      .ref = ref};
  TRY_ASSIGN(auto found, tools::find_isolated_workspace(runner, request, held.cancel));
  if (!found) {
    TRY_ASSIGN(found, tools::make_isolated_workspace(runner, request, held.cancel));
    if (restore) {
      TRY(tools::apply_patch(runner, found->root, std::string(string_member(checkpoint, "patch")),
                             held.cancel));
      held.restored = true;
    }
  }
  held.worktree = std::move(*found);
  held.workspace = held.worktree->path;
  tools::ProcessSpec spec;
  spec.argv = {"git", "rev-parse", "HEAD"};
  spec.cwd = held.worktree->root;
  spec.merge_stderr = false;
  TRY_ASSIGN(const auto head, runner.run(spec, held.cancel));
  held.base_commit = std::string(trim(head.output));
  return {};
}

Result<void> save_goal_checkpoint(HeldGoal& held, store::GoalQueue& queue,
                                  const std::string& worker, tools::ProcessRunner& runner) {
  if (!held.worktree || held.cancel.cancelled()) {
    return {};
  }
  TRY_ASSIGN(const std::string patch,
             tools::worktree_patch(runner, *held.worktree, held.base_commit, held.cancel));
  // Not held any more: the goal's new holder keeps its own checkpoints.
  TRY(queue.save_checkpoint(worker, store::claim_of(held.row),
                            nlohmann::json{{"base", held.base_commit}, {"patch", patch}}.dump()));
  return {};
}

void add_goal_changes(HeldGoal& held, const std::string& push, tools::ProcessRunner& runner) {
  const session::SessionReport& report = *held.report;
  nlohmann::json& line = held.result;
  const CancelToken cancel; // the result is kept even while stopping
  auto commit = tools::commit_worktree(
      runner, *held.worktree, fmt::format("ralph: {} ({})", held.goal.id, to_string(report.status)),
      cancel);
  if (!commit) {
    line["result_error"] = commit.error().message;
    return;
  }
  line["branch"] = held.worktree->branch;
  line["commit"] = *commit;
  if (!push.empty()) {
    auto pushed = tools::push_branch(runner, *held.worktree, push, cancel);
    if (pushed) {
      line["pushed_to"] = push;
      return;
    }
    line["result_error"] = pushed.error().message; // the patch below keeps the work
  }
  auto changes = tools::changes_between_commits(runner, held.worktree->root, held.base_commit,
                                                *commit, cancel);
  if (changes) {
    line["patch"] = changes->patch;
    line["files"] = changes->files;
  } else {
    line["result_error"] = changes.error().message;
  }
}

} // namespace ralph::app
