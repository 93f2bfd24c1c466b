#include "store/sqlite_schema.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <stdexcept>

namespace ralph::store::sqlite {
namespace {

// Columns mirror the row structs of session_store.h. Every column but tool_calls.exit_code is
// NOT NULL: the store writes "" and 0 for empty values, NULL only for "no exit code". Children
// of a session go with it (ON DELETE CASCADE, with foreign_keys=ON on every connection).
constexpr std::string_view k_schema_1 = R"sql(
CREATE TABLE sessions (
  id TEXT PRIMARY KEY NOT NULL,
  goal TEXT NOT NULL,
  workspace TEXT NOT NULL,
  model TEXT NOT NULL,
  status TEXT NOT NULL,
  reason TEXT NOT NULL,
  answer TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  config_json TEXT NOT NULL,
  baseline_json TEXT NOT NULL,
  resume_json TEXT NOT NULL,
  iterations INTEGER NOT NULL,
  best_iteration INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  cost_known INTEGER NOT NULL,
  elapsed_ms INTEGER NOT NULL,
  owner_pid INTEGER NOT NULL
);
CREATE INDEX sessions_by_created ON sessions (created_at, id);
CREATE INDEX sessions_by_updated ON sessions (updated_at);

CREATE TABLE attempts (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  finished INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  start_json TEXT NOT NULL,
  messages_json TEXT NOT NULL,
  answer TEXT NOT NULL,
  stop TEXT NOT NULL,
  steps INTEGER NOT NULL,
  tool_calls INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  verified INTEGER NOT NULL,
  skip_reason TEXT NOT NULL,
  passed INTEGER NOT NULL,
  feedback TEXT NOT NULL,
  PRIMARY KEY (session_id, iteration)
);

CREATE TABLE model_calls (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  step INTEGER NOT NULL,
  model TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  stop_reason TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX model_calls_by_session ON model_calls (session_id);

CREATE TABLE tool_calls (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  call_id TEXT NOT NULL,
  name TEXT NOT NULL,
  arguments TEXT NOT NULL,
  result TEXT NOT NULL,
  exit_code INTEGER,
  is_error INTEGER NOT NULL,
  changed_workspace INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX tool_calls_by_session ON tool_calls (session_id, iteration, seq);

CREATE TABLE verdicts (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  verifier TEXT NOT NULL,
  result TEXT NOT NULL,
  category TEXT NOT NULL,
  feedback TEXT NOT NULL,
  reasoning TEXT NOT NULL,
  policy TEXT NOT NULL,
  model TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  evidence_json TEXT NOT NULL,
  output TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX verdicts_by_session ON verdicts (session_id, iteration, seq);
)sql";

// Verdicts record what kind of verifier gave them (verify/verifier_kind.h), so the loop tells
// its own commands' failures apart without reading names. Before this, only command verifiers
// were named "command: ...".
constexpr std::string_view k_schema_2 = R"sql(
ALTER TABLE verdicts ADD COLUMN kind TEXT NOT NULL DEFAULT '';
UPDATE verdicts SET kind = 'command' WHERE verifier LIKE 'command: %';
)sql";

// Whether every verifier passed the delivered answer (a fail_open error checks nothing), and
// whether the token counts are estimates (the server reported no usage). Older sessions did not
// know: they read as unverified with reported usage.
constexpr std::string_view k_schema_3 = R"sql(
ALTER TABLE sessions ADD COLUMN verified INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN usage_estimated INTEGER NOT NULL DEFAULT 0;
)sql";

// What started each session (store::SessionKind) and, for a chat's /goal loop, the chat it
// belongs to. Every older session was a run with no parent.
constexpr std::string_view k_schema_4 = R"sql(
ALTER TABLE sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'run';
ALTER TABLE sessions ADD COLUMN parent_id TEXT NOT NULL DEFAULT '';
)sql";

// The resume point (the conversation the next attempt starts from, growing with the run) moves
// to its own row: SQLite rewrites a whole row on every UPDATE, and the session's counters are
// updated with every model call. sessions.resume_json stays, always empty. For the same reason
// updated_at, written with every model call, loses its index: only prune, which is rare, used it.
constexpr std::string_view k_schema_5 = R"sql(
CREATE TABLE session_resume (
  session_id TEXT PRIMARY KEY NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  json TEXT NOT NULL
);
INSERT INTO session_resume (session_id, json) SELECT id, resume_json FROM sessions;
UPDATE sessions SET resume_json = '';
DROP INDEX sessions_by_updated;
)sql";

// The machine of owner_pid: a store on a server is shared by many, where a pid alone names no
// process. Older sessions did not say (empty).
constexpr std::string_view k_schema_6 = R"sql(
ALTER TABLE sessions ADD COLUMN owner_host TEXT NOT NULL DEFAULT '';
)sql";

constexpr Migration k_session_schema[] = {
    {1, k_schema_1}, {2, k_schema_2}, {3, k_schema_3},
    {4, k_schema_4}, {5, k_schema_5}, {6, k_schema_6},
};

Result<bool> has_tables(Database& db) {
  TRY_ASSIGN(Statement any,
             db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' LIMIT 1", "read schema"));
  return any.step();
}

} // namespace

std::span<const Migration> session_schema() {
  return k_session_schema;
}

Result<int> schema_version(Database& db) {
  TRY_ASSIGN(Statement version, db.prepare("PRAGMA user_version", "read schema version"));
  TRY_ASSIGN(const bool has_row, version.step());
  return has_row ? static_cast<int>(version.integer(0)) : 0;
}

Result<void> migrate(Database& db, std::span<const Migration> migrations) {
  for (std::size_t i = 0; i < migrations.size(); ++i) {
    if (migrations[i].version != static_cast<int>(i) + 1) {
      throw std::logic_error("schema migrations must be numbered 1, 2, ... in order");
    }
  }
  const int latest = static_cast<int>(migrations.size());
  const auto newer = [&](int version) {
    return fail(db.error_message(
        fmt::format("written by a newer ralph (schema {}, this build knows {})", version, latest)));
  };
  // The common case, an up-to-date file, costs one read and no write lock.
  TRY_ASSIGN(int version, schema_version(db));
  if (version > latest) {
    return newer(version);
  }
  if (version == latest) {
    return {};
  }
  TRY_ASSIGN(Transaction transaction, Transaction::write(db, Sync::disk));
  // Again under the write lock: another process may have migrated the file meanwhile.
  TRY_ASSIGN(version, schema_version(db));
  if (version > latest) {
    return newer(version);
  }
  if (version == 0) {
    TRY_ASSIGN(const bool tables, has_tables(db));
    if (tables) {
      return fail(db.error_message("not a ralph database (it has tables but no schema version)"));
    }
  }
  for (const Migration& migration : migrations.subspan(static_cast<std::size_t>(version))) {
    const std::string what = fmt::format("migrate to schema {}", migration.version);
    TRY(db.exec(std::string(migration.sql), what));
  }
  // PRAGMA takes no parameters; the value is our own integer.
  TRY(db.exec(fmt::format("PRAGMA user_version = {}", latest), "set schema version"));
  return transaction.commit();
}

} // namespace ralph::store::sqlite
