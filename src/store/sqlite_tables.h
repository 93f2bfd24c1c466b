#pragma once

#include "store/sqlite_db.h"

#include "ralph/store/session_store.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// Statements over the session store's tables (sqlite_schema.cpp), one function each: rows in,
// rows out, no transactions (the caller holds one).
namespace ralph::store::sqlite {

Result<void> insert_session(Database& db, const SessionRow& session);
// Every column but id and created_at; false when there is no such session.
Result<bool> update_session(Database& db, const SessionRow& session);
// updated_at and the counters (iterations, best_iteration, tokens, cost, elapsed_ms) only, so a
// step does not rewrite the large JSON columns; false when there is no such session.
Result<bool> update_session_counters(Database& db, const SessionRow& session);
Result<std::optional<SessionRow>> select_session(Database& db, const std::string& id);
// Newest first: created_at, then id, descending.
Result<std::vector<SessionRow>> select_sessions(Database& db);
// Removes the session and, by cascade, everything recorded about it; false when none.
Result<bool> delete_session(Database& db, const std::string& id);

struct SessionOwner {
  std::string id;
  std::int64_t owner_pid = 0;
  std::string owner_host;
};
// Sessions last updated before `cutoff`, oldest first.
Result<std::vector<SessionOwner>> select_sessions_updated_before(Database& db,
                                                                 const std::string& cutoff);

Result<void> upsert_attempt(Database& db, const AttemptRow& attempt);
Result<void> insert_model_call(Database& db, const ModelCallRow& call);
Result<void> insert_tool_call(Database& db, const ToolCallRow& call);
Result<void> delete_verdicts(Database& db, const std::string& session_id, int iteration);
Result<void> insert_verdict(Database& db, const VerdictRow& verdict);

// A session's rows, in the order SessionRecord documents.
Result<std::vector<AttemptRow>> select_attempts(Database& db, const std::string& session_id);
Result<std::vector<ModelCallRow>> select_model_calls(Database& db, const std::string& session_id);
Result<std::vector<ToolCallRow>> select_tool_calls(Database& db, const std::string& session_id);
Result<std::vector<VerdictRow>> select_verdicts(Database& db, const std::string& session_id);

} // namespace ralph::store::sqlite
