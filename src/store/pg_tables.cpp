#include "store/pg_tables.h"

#include "ralph/core/try.h"

#include <utility>

namespace ralph::store::pg {
namespace {

// Column lists shared by each table's INSERT and SELECT, in the order add_* adds the parameters
// ($1, $2, ...) and read_* reads them. Macros so the SQL stays one literal: prepared statements
// are cached by their text.
#define RALPH_PG_SESSION_COLUMNS                                                                   \
  "id, goal, workspace, model, status, reason, answer, created_at, updated_at, config_json, "      \
  "baseline_json, resume_json, iterations, best_iteration, input_tokens, output_tokens, "          \
  "cost_usd, cost_known, elapsed_ms, owner_pid, verified, usage_estimated, kind, parent_id, "      \
  "owner_host"
#define RALPH_PG_ATTEMPT_COLUMNS                                                                   \
  "session_id, iteration, finished, started_at, finished_at, start_json, messages_json, answer, "  \
  "stop, steps, tool_calls, input_tokens, output_tokens, duration_ms, verified, skip_reason, "     \
  "passed, feedback"
#define RALPH_PG_MODEL_CALL_COLUMNS                                                                \
  "session_id, iteration, step, model, input_tokens, output_tokens, stop_reason, at"
#define RALPH_PG_TOOL_CALL_COLUMNS                                                                 \
  "session_id, iteration, seq, call_id, name, arguments, result, exit_code, is_error, "            \
  "changed_workspace, duration_ms, at"
#define RALPH_PG_VERDICT_COLUMNS                                                                   \
  "session_id, iteration, seq, verifier, result, category, feedback, reasoning, policy, model, "   \
  "input_tokens, output_tokens, duration_ms, evidence_json, output, at, kind"

Params session_params(const SessionRow& row) {
  Params p;
  p.add(row.id).add(row.goal).add(row.workspace).add(row.model).add(to_string(row.status));
  p.add(row.reason).add(row.answer).add(row.created_at).add(row.updated_at);
  p.add(row.config_json).add(row.baseline_json).add(row.resume_json);
  p.add(row.iterations).add(row.best_iteration).add(row.input_tokens).add(row.output_tokens);
  p.add(row.cost_usd).add(row.cost_known).add(row.elapsed_ms).add(row.owner_pid);
  p.add(row.verified).add(row.usage_estimated).add(to_string(row.kind)).add(row.parent_id);
  p.add(row.owner_host);
  return p;
}

SessionRow read_session(const Rows& r, int i) {
  SessionRow row;
  row.id = r.text(i, 0);
  row.goal = r.text(i, 1);
  row.workspace = r.text(i, 2);
  row.model = r.text(i, 3);
  // A name this build does not know can only come from a newer ralph (refused by migrate) or a
  // damaged row: shown as failed, as SQLite's does.
  row.status = status_from_string(r.text(i, 4)).value_or(Status::failed);
  row.reason = r.text(i, 5);
  row.answer = r.text(i, 6);
  row.created_at = r.text(i, 7);
  row.updated_at = r.text(i, 8);
  row.config_json = r.text(i, 9);
  row.baseline_json = r.text(i, 10);
  row.resume_json = r.text(i, 11);
  row.iterations = static_cast<int>(r.integer(i, 12));
  row.best_iteration = static_cast<int>(r.integer(i, 13));
  row.input_tokens = r.integer(i, 14);
  row.output_tokens = r.integer(i, 15);
  row.cost_usd = r.real(i, 16);
  row.cost_known = r.boolean(i, 17);
  row.elapsed_ms = r.integer(i, 18);
  row.owner_pid = r.integer(i, 19);
  row.verified = r.boolean(i, 20);
  row.usage_estimated = r.boolean(i, 21);
  row.kind = value_of(k_session_kind_names, r.text(i, 22)).value_or(SessionKind::run);
  row.parent_id = r.text(i, 23);
  row.owner_host = r.text(i, 24);
  return row;
}

Params attempt_params(const AttemptRow& row) {
  Params p;
  p.add(row.session_id).add(row.iteration).add(row.finished).add(row.started_at);
  p.add(row.finished_at).add(row.start_json).add(row.messages_json).add(row.answer);
  p.add(row.stop).add(row.steps).add(row.tool_calls).add(row.input_tokens);
  p.add(row.output_tokens).add(row.duration_ms).add(row.verified).add(row.skip_reason);
  p.add(row.passed).add(row.feedback);
  return p;
}

AttemptRow read_attempt(const Rows& r, int i) {
  AttemptRow row;
  row.session_id = r.text(i, 0);
  row.iteration = static_cast<int>(r.integer(i, 1));
  row.finished = r.boolean(i, 2);
  row.started_at = r.text(i, 3);
  row.finished_at = r.text(i, 4);
  row.start_json = r.text(i, 5);
  row.messages_json = r.text(i, 6);
  row.answer = r.text(i, 7);
  row.stop = r.text(i, 8);
  row.steps = static_cast<int>(r.integer(i, 9));
  row.tool_calls = static_cast<int>(r.integer(i, 10));
  row.input_tokens = r.integer(i, 11);
  row.output_tokens = r.integer(i, 12);
  row.duration_ms = r.integer(i, 13);
  row.verified = r.boolean(i, 14);
  row.skip_reason = r.text(i, 15);
  row.passed = r.boolean(i, 16);
  row.feedback = r.text(i, 17);
  return row;
}

ModelCallRow read_model_call(const Rows& r, int i) {
  ModelCallRow row;
  row.session_id = r.text(i, 0);
  row.iteration = static_cast<int>(r.integer(i, 1));
  row.step = static_cast<int>(r.integer(i, 2));
  row.model = r.text(i, 3);
  row.input_tokens = r.integer(i, 4);
  row.output_tokens = r.integer(i, 5);
  row.stop_reason = r.text(i, 6);
  row.at = r.text(i, 7);
  return row;
}

ToolCallRow read_tool_call(const Rows& r, int i) {
  ToolCallRow row;
  row.session_id = r.text(i, 0);
  row.iteration = static_cast<int>(r.integer(i, 1));
  row.seq = static_cast<int>(r.integer(i, 2));
  row.call_id = r.text(i, 3);
  row.name = r.text(i, 4);
  row.arguments = r.text(i, 5);
  row.result = r.text(i, 6);
  row.exit_code = r.optional_int(i, 7);
  row.is_error = r.boolean(i, 8);
  row.changed_workspace = r.boolean(i, 9);
  row.duration_ms = r.integer(i, 10);
  row.at = r.text(i, 11);
  return row;
}

VerdictRow read_verdict(const Rows& r, int i) {
  VerdictRow row;
  row.session_id = r.text(i, 0);
  row.iteration = static_cast<int>(r.integer(i, 1));
  row.seq = static_cast<int>(r.integer(i, 2));
  row.verifier = r.text(i, 3);
  row.result = value_of(k_outcome_names, r.text(i, 4)).value_or(Outcome::error);
  row.category = r.text(i, 5);
  row.feedback = r.text(i, 6);
  row.reasoning = r.text(i, 7);
  row.policy = value_of(k_error_policy_names, r.text(i, 8));
  row.model = r.text(i, 9);
  row.input_tokens = r.integer(i, 10);
  row.output_tokens = r.integer(i, 11);
  row.duration_ms = r.integer(i, 12);
  row.evidence_json = r.text(i, 13);
  row.output = r.text(i, 14);
  row.at = r.text(i, 15);
  row.kind = r.text(i, 16);
  return row;
}

// Every row of a query, each turned into a value by `read`.
template <typename Row>
Result<std::vector<Row>> select(Connection& db, std::string_view sql, const Params& params,
                                std::string_view what, Row (*read)(const Rows&, int)) {
  TRY_ASSIGN(const Rows rows, db.query(sql, params, what));
  std::vector<Row> out;
  out.reserve(static_cast<std::size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    out.push_back(read(rows, i));
  }
  return out;
}

Result<bool> changed_any(Result<Rows> rows) {
  TRY_ASSIGN(const Rows done, std::move(rows));
  return done.affected() > 0;
}

Result<void> done(Result<Rows> rows) {
  TRY(std::move(rows));
  return {};
}

} // namespace

Result<bool> insert_session(Connection& db, const SessionRow& session) {
  return changed_any(db.query("INSERT INTO sessions (" RALPH_PG_SESSION_COLUMNS
                              ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, "
                              "$14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25) "
                              "ON CONFLICT (id) DO NOTHING",
                              session_params(session), "create session"));
}

Result<bool> update_session(Connection& db, const SessionRow& session) {
  // $8 (created_at) is sent with the rest but not used: the row keeps its creation time.
  return changed_any(db.query(
      "UPDATE sessions SET goal = $2, workspace = $3, model = $4, status = $5, reason = $6, "
      "answer = $7, updated_at = $9, config_json = $10, baseline_json = $11, resume_json = $12, "
      "iterations = $13, best_iteration = $14, input_tokens = $15, output_tokens = $16, "
      "cost_usd = $17, cost_known = $18, elapsed_ms = $19, owner_pid = $20, verified = $21, "
      "usage_estimated = $22, kind = $23, parent_id = $24, owner_host = $25 "
      "WHERE id = $1 AND $8::text IS NOT NULL",
      session_params(session), "update session"));
}

Result<bool> update_session_counters(Connection& db, const SessionRow& session) {
  Params p;
  p.add(session.id).add(session.updated_at).add(session.iterations);
  p.add(session.best_iteration).add(session.input_tokens).add(session.output_tokens);
  p.add(session.cost_usd).add(session.cost_known).add(session.elapsed_ms);
  p.add(session.usage_estimated);
  return changed_any(db.query(
      "UPDATE sessions SET updated_at = $2, iterations = $3, best_iteration = $4, "
      "input_tokens = $5, output_tokens = $6, cost_usd = $7, cost_known = $8, elapsed_ms = $9, "
      "usage_estimated = $10 WHERE id = $1",
      p, "update session counters"));
}

Result<std::optional<SessionRow>> select_session(Connection& db, const std::string& id) {
  TRY_ASSIGN(std::vector<SessionRow> rows,
             select(db, "SELECT " RALPH_PG_SESSION_COLUMNS " FROM sessions WHERE id = $1",
                    Params().add(id), "find session", &read_session));
  if (rows.empty()) {
    return std::nullopt;
  }
  return std::move(rows.front());
}

Result<std::vector<SessionRow>> select_sessions(Connection& db) {
  return select(db,
                "SELECT " RALPH_PG_SESSION_COLUMNS " FROM sessions "
                "ORDER BY created_at COLLATE \"C\" DESC, id COLLATE \"C\" DESC",
                Params(), "list sessions", &read_session);
}

Result<bool> delete_session(Connection& db, const std::string& id) {
  return changed_any(
      db.query("DELETE FROM sessions WHERE id = $1", Params().add(id), "remove session"));
}

Result<std::vector<SessionOwner>> select_sessions_updated_before(Connection& db,
                                                                 const std::string& cutoff) {
  return select(
      db,
      "SELECT id, owner_pid, owner_host FROM sessions WHERE updated_at COLLATE \"C\" < $1 "
      "ORDER BY updated_at COLLATE \"C\", id COLLATE \"C\" FOR UPDATE",
      Params().add(cutoff), "find old sessions", +[](const Rows& r, int i) {
        return SessionOwner{r.text(i, 0), r.integer(i, 1), r.text(i, 2)};
      });
}

Result<void> upsert_attempt(Connection& db, const AttemptRow& attempt) {
  return done(db.query(
      "INSERT INTO attempts (" RALPH_PG_ATTEMPT_COLUMNS ") VALUES ($1, $2, $3, $4, $5, $6, $7, "
      "$8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) "
      "ON CONFLICT (session_id, iteration) DO UPDATE SET finished = EXCLUDED.finished, "
      "started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at, "
      "start_json = EXCLUDED.start_json, messages_json = EXCLUDED.messages_json, "
      "answer = EXCLUDED.answer, stop = EXCLUDED.stop, steps = EXCLUDED.steps, "
      "tool_calls = EXCLUDED.tool_calls, input_tokens = EXCLUDED.input_tokens, "
      "output_tokens = EXCLUDED.output_tokens, duration_ms = EXCLUDED.duration_ms, "
      "verified = EXCLUDED.verified, skip_reason = EXCLUDED.skip_reason, "
      "passed = EXCLUDED.passed, feedback = EXCLUDED.feedback",
      attempt_params(attempt), "save attempt"));
}

Result<void> insert_model_call(Connection& db, const ModelCallRow& call, std::int64_t write_key) {
  Params p;
  p.add(write_key).add(call.session_id).add(call.iteration).add(call.step).add(call.model);
  p.add(call.input_tokens).add(call.output_tokens).add(call.stop_reason).add(call.at);
  return done(db.query("INSERT INTO model_calls (write_key, " RALPH_PG_MODEL_CALL_COLUMNS
                       ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
                       "ON CONFLICT (write_key) DO NOTHING",
                       p, "insert model call"));
}

Result<void> insert_tool_call(Connection& db, const ToolCallRow& call, std::int64_t write_key) {
  Params p;
  p.add(write_key).add(call.session_id).add(call.iteration).add(call.seq).add(call.call_id);
  p.add(call.name).add(call.arguments).add(call.result).add(call.exit_code).add(call.is_error);
  p.add(call.changed_workspace).add(call.duration_ms).add(call.at);
  return done(db.query("INSERT INTO tool_calls (write_key, " RALPH_PG_TOOL_CALL_COLUMNS
                       ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) "
                       "ON CONFLICT (write_key) DO NOTHING",
                       p, "insert tool call"));
}

Result<void> delete_verdicts(Connection& db, const std::string& session_id, int iteration) {
  return done(db.query("DELETE FROM verdicts WHERE session_id = $1 AND iteration = $2",
                       Params().add(session_id).add(iteration), "replace verdicts"));
}

Result<void> insert_verdict(Connection& db, const VerdictRow& verdict) {
  Params p;
  p.add(verdict.session_id).add(verdict.iteration).add(verdict.seq).add(verdict.verifier);
  p.add(to_string(verdict.result)).add(verdict.category).add(verdict.feedback);
  p.add(verdict.reasoning).add(verdict.policy ? to_string(*verdict.policy) : "");
  p.add(verdict.model).add(verdict.input_tokens).add(verdict.output_tokens);
  p.add(verdict.duration_ms).add(verdict.evidence_json).add(verdict.output).add(verdict.at);
  p.add(verdict.kind);
  return done(db.query("INSERT INTO verdicts (" RALPH_PG_VERDICT_COLUMNS
                       ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, "
                       "$15, $16, $17)",
                       p, "insert verdict"));
}

Result<std::vector<AttemptRow>> select_attempts(Connection& db, const std::string& session_id) {
  return select(db,
                "SELECT " RALPH_PG_ATTEMPT_COLUMNS " FROM attempts WHERE session_id = $1 "
                "ORDER BY iteration",
                Params().add(session_id), "load attempts", &read_attempt);
}

Result<std::vector<ModelCallRow>> select_model_calls(Connection& db,
                                                     const std::string& session_id) {
  return select(db,
                "SELECT " RALPH_PG_MODEL_CALL_COLUMNS " FROM model_calls WHERE session_id = $1 "
                "ORDER BY id",
                Params().add(session_id), "load model calls", &read_model_call);
}

Result<std::vector<ToolCallRow>> select_tool_calls(Connection& db, const std::string& session_id) {
  return select(db,
                "SELECT " RALPH_PG_TOOL_CALL_COLUMNS " FROM tool_calls WHERE session_id = $1 "
                "ORDER BY iteration, seq, id",
                Params().add(session_id), "load tool calls", &read_tool_call);
}

Result<std::vector<VerdictRow>> select_verdicts(Connection& db, const std::string& session_id) {
  return select(db,
                "SELECT " RALPH_PG_VERDICT_COLUMNS " FROM verdicts WHERE session_id = $1 "
                "ORDER BY iteration, seq, id",
                Params().add(session_id), "load verdicts", &read_verdict);
}

} // namespace ralph::store::pg
