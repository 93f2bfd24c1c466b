#include "store/sqlite_tables.h"

#include "ralph/core/try.h"

#include <utility>

namespace ralph::store::sqlite {
namespace {

// Column lists shared by each table's INSERT and SELECT, in the order bind_* binds them (?1,
// ?2, ...) and read_* reads them. Macros so the SQL stays one literal: the statement cache is
// keyed by its text.
#define RALPH_SESSION_COLUMNS                                                                      \
  "id, goal, workspace, model, status, reason, answer, created_at, updated_at, config_json, "      \
  "baseline_json, resume_json, iterations, best_iteration, input_tokens, output_tokens, "          \
  "cost_usd, cost_known, elapsed_ms, owner_pid, verified, usage_estimated, kind, parent_id, "      \
  "owner_host"
// The same columns read back, the resume point from its own table (schema 5).
#define RALPH_SESSION_SELECT                                                                       \
  "id, goal, workspace, model, status, reason, answer, created_at, updated_at, config_json, "      \
  "baseline_json, (SELECT json FROM session_resume WHERE session_id = sessions.id), iterations, "  \
  "best_iteration, input_tokens, output_tokens, cost_usd, cost_known, elapsed_ms, owner_pid, "     \
  "verified, usage_estimated, kind, parent_id, owner_host"
#define RALPH_ATTEMPT_COLUMNS                                                                      \
  "session_id, iteration, finished, started_at, finished_at, start_json, messages_json, answer, "  \
  "stop, steps, tool_calls, input_tokens, output_tokens, duration_ms, verified, skip_reason, "     \
  "passed, feedback"
#define RALPH_MODEL_CALL_COLUMNS                                                                   \
  "session_id, iteration, step, model, input_tokens, output_tokens, stop_reason, at"
#define RALPH_TOOL_CALL_COLUMNS                                                                    \
  "session_id, iteration, seq, call_id, name, arguments, result, exit_code, is_error, "            \
  "changed_workspace, duration_ms, at"
#define RALPH_VERDICT_COLUMNS                                                                      \
  "session_id, iteration, seq, verifier, result, category, feedback, reasoning, policy, model, "   \
  "input_tokens, output_tokens, duration_ms, evidence_json, output, at, kind"

void bind_session(Statement& s, const SessionRow& row) {
  s.bind(row.id).bind(row.goal).bind(row.workspace).bind(row.model).bind(to_string(row.status));
  s.bind(row.reason).bind(row.answer).bind(row.created_at).bind(row.updated_at);
  s.bind(row.config_json).bind(row.baseline_json).bind(row.resume_json);
  s.bind(row.iterations).bind(row.best_iteration).bind(row.input_tokens).bind(row.output_tokens);
  s.bind(row.cost_usd).bind(row.cost_known).bind(row.elapsed_ms).bind(row.owner_pid);
  s.bind(row.verified).bind(row.usage_estimated).bind(to_string(row.kind)).bind(row.parent_id);
  s.bind(row.owner_host);
}

SessionRow read_session(const Statement& s) {
  SessionRow row;
  row.id = s.text(0);
  row.goal = s.text(1);
  row.workspace = s.text(2);
  row.model = s.text(3);
  // A name this build does not know can only come from a newer ralph; the migration check refuses
  // those files, so this is a damaged row: it is shown as failed rather than trusted.
  row.status = status_from_string(s.text(4)).value_or(Status::failed);
  row.reason = s.text(5);
  row.answer = s.text(6);
  row.created_at = s.text(7);
  row.updated_at = s.text(8);
  row.config_json = s.text(9);
  row.baseline_json = s.text(10);
  row.resume_json = s.text(11);
  row.iterations = static_cast<int>(s.integer(12));
  row.best_iteration = static_cast<int>(s.integer(13));
  row.input_tokens = s.integer(14);
  row.output_tokens = s.integer(15);
  row.cost_usd = s.real(16);
  row.cost_known = s.boolean(17);
  row.elapsed_ms = s.integer(18);
  row.owner_pid = s.integer(19);
  row.verified = s.boolean(20);
  row.usage_estimated = s.boolean(21);
  // As with the status: an unknown kind is a damaged row, shown as a plain run.
  row.kind = value_of(k_session_kind_names, s.text(22)).value_or(SessionKind::run);
  row.parent_id = s.text(23);
  row.owner_host = s.text(24);
  return row;
}

void bind_attempt(Statement& s, const AttemptRow& row) {
  s.bind(row.session_id).bind(row.iteration).bind(row.finished).bind(row.started_at);
  s.bind(row.finished_at).bind(row.start_json).bind(row.messages_json).bind(row.answer);
  s.bind(row.stop).bind(row.steps).bind(row.tool_calls).bind(row.input_tokens);
  s.bind(row.output_tokens).bind(row.duration_ms).bind(row.verified).bind(row.skip_reason);
  s.bind(row.passed).bind(row.feedback);
}

AttemptRow read_attempt(const Statement& s) {
  AttemptRow row;
  row.session_id = s.text(0);
  row.iteration = static_cast<int>(s.integer(1));
  row.finished = s.boolean(2);
  row.started_at = s.text(3);
  row.finished_at = s.text(4);
  row.start_json = s.text(5);
  row.messages_json = s.text(6);
  row.answer = s.text(7);
  row.stop = s.text(8);
  row.steps = static_cast<int>(s.integer(9));
  row.tool_calls = static_cast<int>(s.integer(10));
  row.input_tokens = s.integer(11);
  row.output_tokens = s.integer(12);
  row.duration_ms = s.integer(13);
  row.verified = s.boolean(14);
  row.skip_reason = s.text(15);
  row.passed = s.boolean(16);
  row.feedback = s.text(17);
  return row;
}

void bind_model_call(Statement& s, const ModelCallRow& row) {
  s.bind(row.session_id).bind(row.iteration).bind(row.step).bind(row.model);
  s.bind(row.input_tokens).bind(row.output_tokens).bind(row.stop_reason).bind(row.at);
}

ModelCallRow read_model_call(const Statement& s) {
  ModelCallRow row;
  row.session_id = s.text(0);
  row.iteration = static_cast<int>(s.integer(1));
  row.step = static_cast<int>(s.integer(2));
  row.model = s.text(3);
  row.input_tokens = s.integer(4);
  row.output_tokens = s.integer(5);
  row.stop_reason = s.text(6);
  row.at = s.text(7);
  return row;
}

void bind_tool_call(Statement& s, const ToolCallRow& row) {
  s.bind(row.session_id).bind(row.iteration).bind(row.seq).bind(row.call_id).bind(row.name);
  s.bind(row.arguments).bind(row.result).bind(row.exit_code).bind(row.is_error);
  s.bind(row.changed_workspace).bind(row.duration_ms).bind(row.at);
}

ToolCallRow read_tool_call(const Statement& s) {
  ToolCallRow row;
  row.session_id = s.text(0);
  row.iteration = static_cast<int>(s.integer(1));
  row.seq = static_cast<int>(s.integer(2));
  row.call_id = s.text(3);
  row.name = s.text(4);
  row.arguments = s.text(5);
  row.result = s.text(6);
  row.exit_code = s.optional_int(7);
  row.is_error = s.boolean(8);
  row.changed_workspace = s.boolean(9);
  row.duration_ms = s.integer(10);
  row.at = s.text(11);
  return row;
}

void bind_verdict(Statement& s, const VerdictRow& row) {
  s.bind(row.session_id).bind(row.iteration).bind(row.seq).bind(row.verifier);
  s.bind(to_string(row.result)).bind(row.category).bind(row.feedback).bind(row.reasoning);
  s.bind(row.policy ? to_string(*row.policy) : "").bind(row.model);
  s.bind(row.input_tokens).bind(row.output_tokens).bind(row.duration_ms);
  s.bind(row.evidence_json).bind(row.output).bind(row.at).bind(row.kind);
}

VerdictRow read_verdict(const Statement& s) {
  VerdictRow row;
  row.session_id = s.text(0);
  row.iteration = static_cast<int>(s.integer(1));
  row.seq = static_cast<int>(s.integer(2));
  row.verifier = s.text(3);
  row.result = value_of(k_outcome_names, s.text(4)).value_or(Outcome::error);
  row.category = s.text(5);
  row.feedback = s.text(6);
  row.reasoning = s.text(7);
  row.policy = value_of(k_error_policy_names, s.text(8));
  row.model = s.text(9);
  row.input_tokens = s.integer(10);
  row.output_tokens = s.integer(11);
  row.duration_ms = s.integer(12);
  row.evidence_json = s.text(13);
  row.output = s.text(14);
  row.at = s.text(15);
  row.kind = s.text(16);
  return row;
}

// Runs a statement that returns no rows; `bind` binds its parameters. Returns the rows changed.
template <typename Bind>
Result<std::int64_t> execute(Database& db, std::string_view sql, std::string_view what,
                             const Bind& bind) {
  TRY_ASSIGN(Statement statement, db.prepare(sql, what));
  bind(statement);
  TRY(statement.run());
  return db.changes();
}

// Every row of a query, each turned into a value by `read`.
template <typename Row, typename Bind>
Result<std::vector<Row>> query(Database& db, std::string_view sql, std::string_view what,
                               const Bind& bind, Row (*read)(const Statement&)) {
  TRY_ASSIGN(Statement statement, db.prepare(sql, what));
  bind(statement);
  std::vector<Row> rows;
  for (;;) {
    TRY_ASSIGN(const bool has_row, statement.step());
    if (!has_row) {
      return rows;
    }
    rows.push_back(read(statement));
  }
}

Result<void> done(Result<std::int64_t> changed) {
  TRY(std::move(changed));
  return {};
}

Result<bool> changed_any(Result<std::int64_t> changed) {
  TRY_ASSIGN(const std::int64_t count, std::move(changed));
  return count > 0;
}

} // namespace

// The resume point lives in session_resume (schema 5): ?12 is bound with the rest and written
// there, sessions.resume_json stays empty, so updating a session's counters never rewrites it.
Result<void> insert_session(Database& db, const SessionRow& session) {
  TRY(done(execute(
      db,
      "INSERT INTO sessions (" RALPH_SESSION_COLUMNS ") VALUES (?1, ?2, ?3, ?4, "
      "?5, ?6, ?7, ?8, ?9, ?10, ?11, '', ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, "
      "?24, ?25)",
      "create session", [&](Statement& s) { bind_session(s, session); })));
  return done(execute(db, "INSERT INTO session_resume (session_id, json) VALUES (?1, ?2)",
                      "create session resume point",
                      [&](Statement& s) { s.bind(session.id).bind(session.resume_json); }));
}

Result<bool> update_session(Database& db, const SessionRow& session) {
  // ?8 (created_at) is bound with the rest but not used: the row keeps its creation time. ?12
  // goes to session_resume, only when it changed (most updates keep the resume point).
  TRY_ASSIGN(const bool found,
             changed_any(execute(
                 db,
                 "UPDATE sessions SET goal = ?2, workspace = ?3, model = ?4, status = ?5, "
                 "reason = ?6, answer = ?7, updated_at = ?9, config_json = ?10, "
                 "baseline_json = ?11, iterations = ?13, best_iteration = ?14, "
                 "input_tokens = ?15, output_tokens = ?16, cost_usd = ?17, cost_known = ?18, "
                 "elapsed_ms = ?19, owner_pid = ?20, verified = ?21, usage_estimated = ?22, "
                 "kind = ?23, parent_id = ?24, owner_host = ?25 WHERE id = ?1",
                 "update session", [&](Statement& s) { bind_session(s, session); })));
  if (!found) {
    return false;
  }
  TRY(done(execute(db,
                   "INSERT INTO session_resume (session_id, json) VALUES (?1, ?2) "
                   "ON CONFLICT (session_id) DO UPDATE SET json = excluded.json "
                   "WHERE json IS NOT excluded.json",
                   "update session resume point",
                   [&](Statement& s) { s.bind(session.id).bind(session.resume_json); })));
  return true;
}

Result<bool> update_session_counters(Database& db, const SessionRow& session) {
  return changed_any(execute(
      db,
      "UPDATE sessions SET updated_at = ?2, iterations = ?3, best_iteration = ?4, "
      "input_tokens = ?5, output_tokens = ?6, cost_usd = ?7, cost_known = ?8, elapsed_ms = ?9, "
      "usage_estimated = ?10 WHERE id = ?1",
      "update session counters", [&](Statement& s) {
        s.bind(session.id).bind(session.updated_at).bind(session.iterations);
        s.bind(session.best_iteration).bind(session.input_tokens).bind(session.output_tokens);
        s.bind(session.cost_usd).bind(session.cost_known).bind(session.elapsed_ms);
        s.bind(session.usage_estimated);
      }));
}

Result<std::optional<SessionRow>> select_session(Database& db, const std::string& id) {
  TRY_ASSIGN(std::vector<SessionRow> rows,
             query(
                 db, "SELECT " RALPH_SESSION_SELECT " FROM sessions WHERE id = ?1", "find session",
                 [&](Statement& s) { s.bind(id); }, &read_session));
  if (rows.empty()) {
    return std::nullopt;
  }
  return std::move(rows.front());
}

Result<std::vector<SessionRow>> select_sessions(Database& db) {
  return query(
      db, "SELECT " RALPH_SESSION_SELECT " FROM sessions ORDER BY created_at DESC, id DESC",
      "list sessions", [](Statement&) {}, &read_session);
}

Result<bool> delete_session(Database& db, const std::string& id) {
  return changed_any(execute(db, "DELETE FROM sessions WHERE id = ?1", "remove session",
                             [&](Statement& s) { s.bind(id); }));
}

Result<std::vector<SessionOwner>> select_sessions_updated_before(Database& db,
                                                                 const std::string& cutoff) {
  return query(
      db,
      "SELECT id, owner_pid, owner_host FROM sessions WHERE updated_at < ?1 "
      "ORDER BY updated_at, id",
      "find old sessions", [&](Statement& s) { s.bind(cutoff); },
      +[](const Statement& s) {
        return SessionOwner{s.text(0), s.integer(1), s.text(2)};
      });
}

Result<void> upsert_attempt(Database& db, const AttemptRow& attempt) {
  // REPLACE deletes the old row first; nothing references attempts, so that is all it does.
  return done(execute(db,
                      "INSERT OR REPLACE INTO attempts (" RALPH_ATTEMPT_COLUMNS ") VALUES (?1, ?2, "
                      "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
                      "save attempt", [&](Statement& s) { bind_attempt(s, attempt); }));
}

Result<void> insert_model_call(Database& db, const ModelCallRow& call) {
  return done(execute(db,
                      "INSERT INTO model_calls (" RALPH_MODEL_CALL_COLUMNS ") VALUES (?1, ?2, ?3, "
                      "?4, ?5, ?6, ?7, ?8)",
                      "insert model call", [&](Statement& s) { bind_model_call(s, call); }));
}

Result<void> insert_tool_call(Database& db, const ToolCallRow& call) {
  return done(execute(db,
                      "INSERT INTO tool_calls (" RALPH_TOOL_CALL_COLUMNS ") VALUES (?1, ?2, ?3, "
                      "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                      "insert tool call", [&](Statement& s) { bind_tool_call(s, call); }));
}

Result<void> delete_verdicts(Database& db, const std::string& session_id, int iteration) {
  return done(execute(db, "DELETE FROM verdicts WHERE session_id = ?1 AND iteration = ?2",
                      "replace verdicts",
                      [&](Statement& s) { s.bind(session_id).bind(iteration); }));
}

Result<void> insert_verdict(Database& db, const VerdictRow& verdict) {
  return done(execute(db,
                      "INSERT INTO verdicts (" RALPH_VERDICT_COLUMNS ") VALUES (?1, ?2, ?3, ?4, "
                      "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
                      "insert verdict", [&](Statement& s) { bind_verdict(s, verdict); }));
}

Result<std::vector<AttemptRow>> select_attempts(Database& db, const std::string& session_id) {
  return query(
      db, "SELECT " RALPH_ATTEMPT_COLUMNS " FROM attempts WHERE session_id = ?1 ORDER BY iteration",
      "load attempts", [&](Statement& s) { s.bind(session_id); }, &read_attempt);
}

Result<std::vector<ModelCallRow>> select_model_calls(Database& db, const std::string& session_id) {
  return query(
      db, "SELECT " RALPH_MODEL_CALL_COLUMNS " FROM model_calls WHERE session_id = ?1 ORDER BY id",
      "load model calls", [&](Statement& s) { s.bind(session_id); }, &read_model_call);
}

Result<std::vector<ToolCallRow>> select_tool_calls(Database& db, const std::string& session_id) {
  return query(
      db,
      "SELECT " RALPH_TOOL_CALL_COLUMNS " FROM tool_calls WHERE session_id = ?1 "
      "ORDER BY iteration, seq, id",
      "load tool calls", [&](Statement& s) { s.bind(session_id); }, &read_tool_call);
}

Result<std::vector<VerdictRow>> select_verdicts(Database& db, const std::string& session_id) {
  return query(
      db,
      "SELECT " RALPH_VERDICT_COLUMNS " FROM verdicts WHERE session_id = ?1 "
      "ORDER BY iteration, seq, id",
      "load verdicts", [&](Statement& s) { s.bind(session_id); }, &read_verdict);
}

} // namespace ralph::store::sqlite
