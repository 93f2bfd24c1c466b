#pragma once

#include "ralph/store/session_store.h"

#include <filesystem>
#include <memory>

namespace ralph::store {

// The SQLite SessionStore: one database file (by default `.ralph/ralph.db` in the workspace), in
// WAL mode (steps committed without an fsync, everything else with one: see SessionStore), a
// writers' queue and a busy timeout so several processes can share it, and a versioned schema
// migrated forward on open. Thread-safe: one instance may be shared by any number of threads
// (each method holds an internal mutex over the one connection, so they run one at a time).
class SqliteSessionStore final : public SessionStore {
public:
  // Opens or creates the database (and its parent folder) and migrates it to the current
  // schema. A database written by a newer ralph (higher schema version) is an error, never
  // silently downgraded.
  static Result<std::unique_ptr<SqliteSessionStore>> open(const std::filesystem::path& path);
  ~SqliteSessionStore() override;
  SqliteSessionStore(const SqliteSessionStore&) = delete;
  SqliteSessionStore& operator=(const SqliteSessionStore&) = delete;

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
  explicit SqliteSessionStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

} // namespace ralph::store
