#pragma once

#include "ralph/core/error.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace ralph::store {

// Where a queued goal is: waiting, claimed by a worker under a lease, or finished (`done`: its
// session completed; `failed`: it ended any other way, the result says how).
enum class GoalState { queued, running, done, failed };

std::string_view to_string(GoalState state);

// A goal to enqueue: its id (unique in its batch) and its line of the goals file as JSON.
struct GoalSpec {
  std::string id;
  std::string spec_json;
};

// One goal of the queue as its row holds it.
struct QueuedGoal {
  std::string batch;
  std::string id;
  std::int64_t seq = 0;      // enqueue order, over every batch
  std::string spec_json;     // the goal's line
  std::string settings_json; // its batch's (claim only)
  GoalState state = GoalState::queued;
  std::string worker;      // who holds (or held) it
  std::string lease_until; // the server's time; empty when not running
  int tries = 0;           // claims so far: the fencing token of the current one
  std::string session_id;  // its session, set by the first worker that ran it
  std::string status;      // the session's final status (finished goals)
  std::string result_json; // its results line (finished goals)
  bool verified = false;
  std::int64_t tokens = 0;
  double cost_usd = 0;
  bool cost_known = true; // false: some model its session used has no price
  // The patch of its workspace against its ref as last saved by a worker running it (claim
  // only): a worker taking the goal over on another machine starts from it.
  std::string checkpoint;
};

// The claim a worker holds on a goal: only it may renew, finish or release the goal, and only
// while no later claim (a takeover after its lease ran out) was made.
struct GoalClaim {
  std::string batch;
  std::string id;
  int tries = 0;
  bool operator<(const GoalClaim& other) const {
    return std::tie(batch, id, tries) < std::tie(other.batch, other.id, other.tries);
  }
  bool operator==(const GoalClaim& other) const = default;
};

GoalClaim claim_of(const QueuedGoal& goal);

// What an enqueue did: ids added, ids there already with the same line, ids there already with
// another line (left as they were).
struct EnqueueOutcome {
  std::vector<std::string> added;
  std::vector<std::string> already;
  std::vector<std::string> conflicts;
};

// What a goal's session has spent so far, all its runs included.
struct GoalSpent {
  std::int64_t tokens = 0;
  double cost_usd = 0;
  bool cost_known = true; // false: some model its session used has no price
};

// How a finished goal ended.
struct GoalOutcome {
  bool completed = false; // `done`; otherwise `failed`
  std::string status;     // the session's final status
  std::string session_id;
  std::string result_json;
  bool verified = false;
  GoalSpent spent;
};

// A batch of the queue, its goals counted.
struct QueueStatus {
  std::string batch;
  std::string created_at;
  int queued = 0;
  int running = 0;
  int stale = 0; // running under a lease that ran out (its worker gone?): claimable again
  int done = 0;
  int failed = 0;
  int verified = 0;
  std::int64_t tokens = 0;
  double cost_usd = 0;
  bool cost_known = true; // every goal's cost had a price (cost_usd is a lower bound otherwise)
  std::map<std::string, int> running_by_worker;
  std::map<std::string, int> statuses; // finished goals by their session's status
  int goals() const { return queued + running + done + failed; }
};

// A goal a worker holds, as the workers view shows it.
struct HeldGoal {
  std::string batch;
  std::string id;
  std::string lease_until; // the server's time (as QueuedGoal's)
  bool stale = false;      // the lease ran out: the goal is claimable again (its worker gone?)
};

// A worker of the queue, by the goals it holds: a worker holding none is not seen.
struct WorkerStatus {
  std::string name;
  std::vector<HeldGoal> goals; // in enqueue order
  // Since its last claim or renewal of a lease, on the queue's clock (the server's: no skew
  // between machines); unknown for goals only claimed or renewed by a ralph from before it kept
  // the time.
  std::optional<std::int64_t> heartbeat_age_ms;
  int stale() const;
};

// The goal queue of distributed batches. Its contract, for every implementation: claims take
// the oldest goals first (queued ones, and running ones whose lease ran out: taken over with
// their session id and checkpoint kept); each claim adds one to the goal's `tries`, the fencing
// token of the claim, so only the latest claim's holder may renew, finish, release, note a session
// or save a checkpoint; renew returns the claims their worker no longer holds. The PostgreSQL
// queue (open) keeps leases on the server's clock; a test's in-memory one on a fake clock.
// Thread-safe.
class GoalQueue {
public:
  // The PostgreSQL queue at `url` (tables `queue_batches` and `queue_goals`, migration track
  // "queue"), its tables brought up to date. Every operation is one transaction, retried after a
  // connection fault for `retry_for`, and written to be safe to run twice. Its writes announce
  // the batches they change and `workers` to a ChangeFeed (change_feed.h) when they commit.
  static Result<std::unique_ptr<GoalQueue>> open(const std::string& url,
                                                 std::chrono::milliseconds retry_for);
  virtual ~GoalQueue() = default;

  // Adds the goals missing from `batch` (made with `settings_json` when new; an existing
  // batch keeps its settings), in order. Idempotent by (batch, id).
  virtual Result<EnqueueOutcome> enqueue(const std::string& batch, const std::string& settings_json,
                                         const std::vector<GoalSpec>& goals) = 0;

  // Up to `max` goals for `worker`, oldest first: queued ones, and running ones whose lease
  // ran out (taken over: their session is kept to resume). Each is leased for `lease`.
  // Concurrent claims never return the same goal.
  virtual Result<std::vector<QueuedGoal>> claim(const std::string& worker, int max,
                                                std::chrono::milliseconds lease) = 0;
  // Extends the leases of `claims` by `lease` from now; returns those `worker` no longer holds.
  virtual Result<std::vector<GoalClaim>> renew(const std::string& worker,
                                               const std::vector<GoalClaim>& claims,
                                               std::chrono::milliseconds lease) = 0;
  // Records the goal as finished when `worker` still holds `claim`: true; false (nothing
  // written) when the goal was taken over or is finished already by another claim. Finishing
  // the same claim again with the same result is true.
  virtual Result<bool> finish(const std::string& worker, const GoalClaim& claim,
                              const GoalOutcome& outcome) = 0;
  // Gives the goal back to the queue (its session kept, to resume) with what its session spent
  // so far, which the batch's status counts; false when not held.
  virtual Result<bool> release(const std::string& worker, const GoalClaim& claim,
                               const GoalSpent& spent) = 0;
  // Notes the goal's session so that whoever takes it over resumes it; false when not held.
  virtual Result<bool> set_session(const std::string& worker, const GoalClaim& claim,
                                   const std::string& session_id) = 0;

  // Keeps `patch` as the goal's workspace checkpoint; false when `worker` no longer holds it.
  virtual Result<bool> save_checkpoint(const std::string& worker, const GoalClaim& claim,
                                       const std::string& patch) = 0;

  // The batch's goals counted; nullopt when there is no such batch.
  virtual Result<std::optional<QueueStatus>> status(const std::string& batch) = 0;
  // Every batch's counts, oldest batch first.
  virtual Result<std::vector<QueueStatus>> batches() = 0;
  // The batch's goals, in enqueue order; only finished ones when `finished_only`.
  virtual Result<std::vector<QueuedGoal>> goals(const std::string& batch,
                                                bool finished_only = false) = 0;
  // Whether any goal of any batch is queued or running (a worker may still get work).
  virtual Result<bool> has_work() = 0;
  // The workers holding running goals, by name, with their heartbeats. Ages grow and leases run
  // out with no write to the queue, so nothing announces them (ChangeFeed): a view that shows
  // them live reads this again from time to time.
  virtual Result<std::vector<WorkerStatus>> workers() = 0;
};

} // namespace ralph::store
