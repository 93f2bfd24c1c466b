#pragma once

#include "ralph/app/batch/goals_file.h"
#include "ralph/app/batch/worker.h"
#include "ralph/core/cancel.h"
#include "ralph/core/event.h"
#include "ralph/session/report.h"
#include "ralph/store/goal_queue.h"
#include "ralph/tools/isolated_workspace.h"
#include "ralph/tools/process_runner.h"
#include "ralph/tools/repo_cache.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace ralph::app {

// A goal's events are not kept (its record is in the store, its result in the queue); the end
// of each attempt saves a checkpoint of its workspace.
class GoalEvents final : public EventSink {
public:
  std::function<void()> attempt_finished; // called on the goal's engine thread

  void on_event(const Event& event) override {
    if (event.get<event::AttemptFinished>() != nullptr && attempt_finished) {
      attempt_finished();
    }
  }
};

// A goal a worker holds. The worker's thread owns it; each stage hands it to the git thread or
// a fiber and takes it back, so one thread at a time changes it (but `lost`).
struct HeldGoal {
  store::QueuedGoal row;
  BatchGoal goal;      // its line, read once when claimed
  bool resume = false; // its session was started by an earlier claim
  std::string session_id;
  CancelToken cancel; // the worker's stop, and this goal's lease lost
  std::optional<tools::IsolatedWorkspace> worktree;
  std::filesystem::path workspace;
  std::string base_commit;        // where the worktree started, for the patch
  bool restored = false;          // made from the checkpoint of the worker it was taken from
  std::atomic<bool> lost = false; // another worker has it now
  GoalEvents events;
  std::optional<session::SessionReport> report; // how it ended: run, or before it could
  nlohmann::json result;                        // its line of results, with where its changes are

  WorkerGoal seen() const {
    return {.batch = row.batch,
            .id = row.id,
            .tries = row.tries,
            .resumed = resume,
            .workspace = workspace};
  }
};

// The goal's workspace under `workdir` (goals/<batch>/<id>): a worktree of its repo at its ref
// (on branch ralph/queue/<batch>/<id>; taken over from a worker that saved a checkpoint: at the
// checkpoint's base commit with its patch applied), or an empty folder for a goal without a repo.
// Made before a crash of this worker (same workdir), it is found again.
Result<void> make_goal_workspace(HeldGoal& held, const std::filesystem::path& workdir,
                                 tools::RepoCache& repos, tools::ProcessRunner& runner);

// The goal's workspace as it is now, against the commit it started from, kept in the queue so
// that a worker taking the goal over elsewhere starts from it. Nothing for a goal without a
// worktree, or one being stopped (its stopped attempt runs again from the last checkpoint).
Result<void> save_goal_checkpoint(HeldGoal& held, store::GoalQueue& queue,
                                  const std::string& worker, tools::ProcessRunner& runner);

// Where the worktree's changes are, added to the goal's result: its commit and branch, pushed to
// `push` when given, else (or when the push fails) the patch and the files it changes.
void add_goal_changes(HeldGoal& held, const std::string& push, tools::ProcessRunner& runner);

} // namespace ralph::app
