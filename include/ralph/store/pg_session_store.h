#pragma once

#include "ralph/store/session_store.h"

#include <chrono>
#include <memory>
#include <string>

namespace ralph::store {

// The PostgreSQL SessionStore (through libpq): the same record and promises as the SQLite one.
// Every method is one transaction, committed before it returns. Durability follows the
// SessionStore contract: the steps of a running attempt commit with `synchronous_commit = off`
// (they survive any client's death; a crash of the server may lose the last of them), every
// other write waits for the server's WAL flush, which makes the steps before it durable too.
// Processes on any number of machines may write one database at once. Connection faults (a server
// restart, a network drop) are retried for `retry_for`, the interrupted transaction run again on a
// new connection; every write is safe to run twice for that. Thread-safe: one instance may be
// shared by threads (a mutex around each method, one connection, so they run one at a time).
class PgSessionStore final : public SessionStore {
public:
  // Connects to `url` (postgresql://...) and applies the session tables' migrations (track
  // "sessions" in `ralph_schema`) when they are missing or older. A database migrated by a
  // newer ralph is an error. Messages name the server without its password.
  static Result<std::unique_ptr<PgSessionStore>> open(const std::string& url,
                                                      std::chrono::milliseconds retry_for);
  ~PgSessionStore() override;
  PgSessionStore(const PgSessionStore&) = delete;
  PgSessionStore& operator=(const PgSessionStore&) = delete;

  // The schema version this build writes.
  static int schema_version();

  Result<void> create_session(const SessionRow& session) override;
  Result<void> update_session(const SessionRow& session) override;
  Result<std::optional<SessionRow>> find_session(const std::string& id) override;
  Result<std::vector<SessionRow>> list_sessions() override;
  Result<std::optional<SessionRecord>> load(const std::string& id) override;
  Result<bool> remove_session(const std::string& id) override;
  Result<std::vector<std::string>> prune(const std::string& cutoff) override;
  Result<void> save_attempt(const AttemptRow& attempt) override;
  Result<void> finish_attempt(const AttemptRow& attempt, const std::vector<VerdictRow>& verdicts,
                              const SessionRow& session) override;
  Result<void> add_model_call(const ModelCallRow& call, const SessionRow& session) override;
  Result<void> add_tool_call(const ToolCallRow& call) override;
  Result<bool> put_record(const SessionRecord& record, bool replace) override;

private:
  struct Impl;
  explicit PgSessionStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

} // namespace ralph::store
