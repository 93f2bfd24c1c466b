#pragma once

#include "store/pg_db.h"

#include "ralph/store/session_store.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// Statements over the PostgreSQL session tables (pg_schema.cpp), one function each: rows in,
// rows out, no transactions (the caller holds one). Each write is safe to run twice.
namespace ralph::store::pg {

// False when a session with this id was already there (nothing written).
Result<bool> insert_session(Connection& db, const SessionRow& session);
// Every column but id and created_at; false when there is no such session.
Result<bool> update_session(Connection& db, const SessionRow& session);
// updated_at and the counters only; false when there is no such session.
Result<bool> update_session_counters(Connection& db, const SessionRow& session);
Result<std::optional<SessionRow>> select_session(Connection& db, const std::string& id);
// Newest first: created_at, then id, descending, in byte order (as SQLite compares text).
Result<std::vector<SessionRow>> select_sessions(Connection& db);
// Removes the session and, by cascade, everything recorded about it; false when none.
Result<bool> delete_session(Connection& db, const std::string& id);

struct SessionOwner {
  std::string id;
  std::int64_t owner_pid = 0;
  std::string owner_host;
};
// Sessions last updated before `cutoff`, oldest first, locked against writers until the
// transaction ends.
Result<std::vector<SessionOwner>> select_sessions_updated_before(Connection& db,
                                                                 const std::string& cutoff);

Result<void> upsert_attempt(Connection& db, const AttemptRow& attempt);
// `write_key` identifies this one write of the step: the same key twice adds one row.
Result<void> insert_model_call(Connection& db, const ModelCallRow& call, std::int64_t write_key);
Result<void> insert_tool_call(Connection& db, const ToolCallRow& call, std::int64_t write_key);
Result<void> delete_verdicts(Connection& db, const std::string& session_id, int iteration);
Result<void> insert_verdict(Connection& db, const VerdictRow& verdict);

// A session's rows, in the order SessionRecord documents.
Result<std::vector<AttemptRow>> select_attempts(Connection& db, const std::string& session_id);
Result<std::vector<ModelCallRow>> select_model_calls(Connection& db, const std::string& session_id);
Result<std::vector<ToolCallRow>> select_tool_calls(Connection& db, const std::string& session_id);
Result<std::vector<VerdictRow>> select_verdicts(Connection& db, const std::string& session_id);

} // namespace ralph::store::pg
