#pragma once

#include "ralph/app/batch/goals_file.h"
#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/tools/isolated_workspace.h"
#include "ralph/tools/process_runner.h"

#include <filesystem>
#include <map>
#include <string>
#include <utility>

namespace ralph::app {

// The goals' own workspaces of a local batch: `<batch dir>/<goal id>`, a worktree on branch
// ralph/batch/<batch>/<goal> (or a copy outside git) of the goal's source. Used by one thread.
class GoalWorkspaces {
public:
  // `workspace`: the batch's, the source of goals that name none; `dir`: the batch's folder.
  GoalWorkspaces(std::filesystem::path workspace, std::filesystem::path dir, std::string batch_id,
                 tools::ProcessRunner& runner);

  // The goal's workspace: the one made before a crash (the batch resumes in it), or a new one.
  Result<tools::IsolatedWorkspace> make(const BatchGoal& goal, const CancelToken& cancel);

private:
  // Its `workspace` or local `repo`, the batch's clone of its `repo` URL (cloned once, fetched at
  // most once per ref in a run), or the batch's workspace.
  Result<std::filesystem::path> source_of(const BatchGoal& goal, const CancelToken& cancel);

  std::filesystem::path m_workspace;
  std::filesystem::path m_dir;
  std::string m_batch_id;
  tools::ProcessRunner& m_runner;
  std::map<std::pair<std::string, std::string>, Result<std::filesystem::path>> m_clones;
};

} // namespace ralph::app
