#pragma once

#include "ralph/core/error.h"

#include <chrono>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace ralph::store {

// Something in the store changed: a session (`id` its id), a batch of the goal queue (`id` its
// name), the queue's workers (leases, heartbeats; no id), or an unknown set of things
// (`resync`: changes may have been missed, so whoever keeps a view of the store reads it again).
struct StoreChange {
  enum class Kind { session, batch, workers, resync };
  Kind kind = Kind::resync;
  std::string id;

  bool operator==(const StoreChange& other) const = default;
  bool operator<(const StoreChange& other) const {
    return std::tie(kind, id) < std::tie(other.kind, other.id);
  }
};

// What other processes write to a store, as it commits, without reading the store in a loop.
//
// - PostgreSQL: every write of PgSessionStore and of the goal queue announces itself (NOTIFY on
//   channel `ralph_changes`, sent with its COMMIT) and the feed LISTENs on a connection of its
//   own, waiting on its socket. Sessions, batches and workers are all reported, from any machine.
//   After a connection fault it reconnects (within `retry_for`) and reports `resync`, since what
//   was announced meanwhile is lost. One try to connect to a host that does not answer blocks for
//   up to its connect timeout (10 s), which wake() does not cut short. wait() returns as soon as
//   anything came, so a busy store wakes it once per write or so; a reader that wants fewer wakes
//   waits a moment after one before the next wait().
// - SQLite: nothing is announced, so the feed watches the database file and its -wal with
//   inotify and, when another connection has committed (PRAGMA data_version), finds the sessions
//   whose row changed (`updated_at`) or went. Limits: sessions only (a local batch lives in
//   files, not in the store); a write that leaves the session row as it was (a tool call) is not
//   seen until the next one that does (a model call, an attempt's end); local processes only (no
//   inotify over a network filesystem); each commit seen costs one read of every session's id and
//   `updated_at`. Since inotify may report a write to the -wal just before its commit becomes
//   visible, a report that finds nothing new is looked at again a few times, shortly after.
//
// One thread waits; wake() may come from any other.
class ChangeFeed {
public:
  // The feed of the store `location` names (as open_session_store takes it). For SQLite the
  // database is created and migrated as the store's open does.
  static Result<std::unique_ptr<ChangeFeed>> open(const std::string& location,
                                                  std::chrono::milliseconds retry_for);
  virtual ~ChangeFeed() = default;

  // Blocks until changes come, `timeout` passes (none: empty) or wake() is called (what came so
  // far, maybe none). Each change once, in StoreChange order. An error when the store cannot be
  // reached for `retry_for`; the next wait() tries again.
  virtual Result<std::vector<StoreChange>> wait(std::chrono::milliseconds timeout) = 0;
  // Ends the current wait() at once, or the next one when none is running (shutdown).
  virtual void wake() = 0;
};

} // namespace ralph::store
