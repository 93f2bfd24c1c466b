#include "app/batch/goal_workspaces.h"

#include "ralph/core/try.h"
#include "ralph/tools/repo_cache.h"

#include <fmt/format.h>

namespace ralph::app {

namespace fs = std::filesystem;

GoalWorkspaces::GoalWorkspaces(fs::path workspace, fs::path dir, std::string batch_id,
                               tools::ProcessRunner& runner)
    : m_workspace(std::move(workspace)), m_dir(std::move(dir)), m_batch_id(std::move(batch_id)),
      m_runner(runner) {}

Result<fs::path> GoalWorkspaces::source_of(const BatchGoal& goal, const CancelToken& cancel) {
  if (goal.repo_url.empty()) {
    return goal.source.empty() ? m_workspace : goal.source;
  }
  const std::pair<std::string, std::string> key(goal.repo_url, goal.ref);
  if (const auto found = m_clones.find(key); found != m_clones.end()) {
    return found->second;
  }
  tools::RepoCache cache(m_dir / "repos");
  auto clone = cache.clone_of(m_runner, goal.repo_url, goal.ref, cancel);
  return m_clones.insert_or_assign(key, std::move(clone)).first->second;
}

Result<tools::IsolatedWorkspace> GoalWorkspaces::make(const BatchGoal& goal,
                                                      const CancelToken& cancel) {
  TRY_ASSIGN(const fs::path source, source_of(goal, cancel));
  const tools::IsolationRequest request{.source = source,
                                        .path = m_dir / goal.id,
                                        .branch =
                                            fmt::format("ralph/batch/{}/{}", m_batch_id, goal.id),
                                        .ref = goal.ref};
  TRY_ASSIGN(auto found, tools::find_isolated_workspace(m_runner, request, cancel));
  if (found) {
    return std::move(*found);
  }
  return tools::make_isolated_workspace(m_runner, request, cancel);
}

} // namespace ralph::app
