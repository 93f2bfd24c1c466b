#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/clock.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/session/report.h"
#include "ralph/session/runtime.h"
#include "ralph/store/goal_queue.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ralph::app {

// A worker of the goal queue: what it runs goals with, and how many at once.
struct WorkerRequest {
  // Absolute, made: goals' workspaces (goals/<batch>/<id>) and clones (repos/), shared by the
  // workers of one machine.
  std::filesystem::path workdir;
  // This machine's configuration (its files, variables and flags): a batch's recorded settings go
  // over it, but its store (where the goals' sessions are recorded: the queue's database, so that
  // any worker can resume any goal) is kept. The store is always on.
  Config config;
  std::vector<Setting> flags; // the command's, over a resumed goal's recorded configuration
  std::string name;           // this worker in the queue; empty: "host:pid:1a2b"
  int concurrency = 8;        // goals held at once
  std::chrono::milliseconds lease{std::chrono::seconds(60)}; // renewed every third of it
  std::string push;             // a remote each result's branch is pushed to; empty: none
  bool exit_when_empty = false; // end once no goal of the queue is queued or running
};

// A worker about to claim goals.
struct WorkerStart {
  std::string name;
  std::filesystem::path workdir;
  int concurrency = 0;
  std::chrono::milliseconds lease{0};
};

// A goal the worker holds.
struct WorkerGoal {
  std::string batch;
  std::string id;
  int tries = 0;        // claims of it so far, this one included
  bool resumed = false; // its session was started by an earlier claim
  std::filesystem::path workspace;
};

// What happens in a worker, one typed call each (the terminal is one implementation). Calls come
// from the thread that called run_worker, except checkpoint_not_saved; none of them steers it.
class WorkerObserver {
public:
  virtual ~WorkerObserver() = default;
  virtual void worker_started(const WorkerStart& start) = 0;
  // A goal taken over: its workspace made again from its last worker's checkpoint.
  virtual void workspace_restored(const WorkerGoal& goal) = 0;
  // Its session is about to run (new, or resumed from its record).
  virtual void goal_started(const WorkerGoal& goal) = 0;
  // It ended and its result went to the queue; `recorded` is false when another worker had taken
  // it over meanwhile (the result is not kept).
  virtual void goal_finished(const WorkerGoal& goal, const session::SessionReport& report,
                             bool recorded) = 0;
  // Stopped before its end: given back to the queue, its session kept to resume.
  virtual void goal_released(const WorkerGoal& goal) = 0;
  // Its lease was lost (renew said so): its session was stopped, its result not recorded.
  virtual void lease_lost(const WorkerGoal& goal) = 0;
  // The end of an attempt could not be checkpointed (called from the goal's own thread).
  virtual void checkpoint_not_saved(const WorkerGoal& goal, const Error& error) = 0;
};

// How a worker ended.
struct WorkerEnd {
  int finished = 0;         // goals whose result it recorded (or tried to)
  bool interrupted = false; // the caller's cancel
  // The queue failed beyond its retries: the goals still held were stopped, and come back to the
  // queue when their leases run out.
  std::optional<Error> fault;
};

// Claims goals of `queue` (up to `concurrency` held at once, looking again at once after a claim
// that got some, else backing off up to 2 s) and renews their leases every third of the lease.
// Each goal runs as a session on an engine, its workspace made, committed and pushed one goal at a
// time on a thread of its own (so no clone or push holds up a renewal): new, or resumed from its
// record when an earlier claim started it (taken over, from its last checkpoint). Its result goes
// to the queue only while the worker still holds it; a lease lost stops the goal. `cancel` stops
// every goal, each given back to the queue. The schedule reads only `clock`. Errors before
// anything is claimed: the store cannot be opened.
Result<WorkerEnd> run_worker(session::Runtime& runtime, const WorkerRequest& request,
                             WorkerObserver& observer, store::GoalQueue& queue, Clock& clock,
                             const CancelToken& cancel);

} // namespace ralph::app
