#include "store/pg_schema.h"

namespace ralph::store::pg {
namespace {

// The tables of sqlite_schema.cpp at its version 5, in PostgreSQL's types: bigint for tokens and
// durations, double precision for cost, boolean flags, text for JSON (kept verbatim, never
// queried) and for times (ISO 8601 UTC strings of one length, so text order is time order, as
// in SQLite). The resume point stays in the session row: PostgreSQL writes a new row version
// on every UPDATE either way, and leaves an unchanged TOASTed value where it is.
// Steps carry `write_key`: a random number the writer draws once per step, so a step written
// again after a fault during COMMIT (pg::Connection::transaction) is recognised and not added
// twice, while a step written again by a resumed attempt (same iteration and step number) is
// kept, as SQLite keeps it. Their `id` keeps the order they were written in.
constexpr std::string_view k_schema_1 = R"sql(
CREATE TABLE sessions (
  id text PRIMARY KEY,
  goal text NOT NULL,
  workspace text NOT NULL,
  model text NOT NULL,
  status text NOT NULL,
  reason text NOT NULL,
  answer text NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  config_json text NOT NULL,
  baseline_json text NOT NULL,
  resume_json text NOT NULL,
  iterations integer NOT NULL,
  best_iteration integer NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  cost_usd double precision NOT NULL,
  cost_known boolean NOT NULL,
  elapsed_ms bigint NOT NULL,
  owner_pid bigint NOT NULL,
  verified boolean NOT NULL,
  usage_estimated boolean NOT NULL,
  kind text NOT NULL,
  parent_id text NOT NULL,
  owner_host text NOT NULL
);
CREATE INDEX sessions_by_created ON sessions (created_at COLLATE "C", id COLLATE "C");

CREATE TABLE attempts (
  session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  iteration integer NOT NULL,
  finished boolean NOT NULL,
  started_at text NOT NULL,
  finished_at text NOT NULL,
  start_json text NOT NULL,
  messages_json text NOT NULL,
  answer text NOT NULL,
  stop text NOT NULL,
  steps integer NOT NULL,
  tool_calls integer NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  duration_ms bigint NOT NULL,
  verified boolean NOT NULL,
  skip_reason text NOT NULL,
  passed boolean NOT NULL,
  feedback text NOT NULL,
  PRIMARY KEY (session_id, iteration)
);

CREATE TABLE model_calls (
  id bigserial PRIMARY KEY,
  write_key bigint NOT NULL UNIQUE,
  session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  iteration integer NOT NULL,
  step integer NOT NULL,
  model text NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  stop_reason text NOT NULL,
  at text NOT NULL
);
CREATE INDEX model_calls_by_session ON model_calls (session_id, id);

CREATE TABLE tool_calls (
  id bigserial PRIMARY KEY,
  write_key bigint NOT NULL UNIQUE,
  session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  iteration integer NOT NULL,
  seq integer NOT NULL,
  call_id text NOT NULL,
  name text NOT NULL,
  arguments text NOT NULL,
  result text NOT NULL,
  exit_code integer,
  is_error boolean NOT NULL,
  changed_workspace boolean NOT NULL,
  duration_ms bigint NOT NULL,
  at text NOT NULL
);
CREATE INDEX tool_calls_by_session ON tool_calls (session_id, iteration, seq);

CREATE TABLE verdicts (
  id bigserial PRIMARY KEY,
  session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  iteration integer NOT NULL,
  seq integer NOT NULL,
  verifier text NOT NULL,
  result text NOT NULL,
  category text NOT NULL,
  feedback text NOT NULL,
  reasoning text NOT NULL,
  policy text NOT NULL,
  model text NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  duration_ms bigint NOT NULL,
  evidence_json text NOT NULL,
  output text NOT NULL,
  at text NOT NULL,
  kind text NOT NULL
);
CREATE INDEX verdicts_by_session ON verdicts (session_id, iteration, seq);
)sql";

constexpr std::string_view k_session_schema[] = {k_schema_1};

// The goal queue's tables (pg_goal_queue.cpp).
constexpr std::string_view k_queue_schema[] = {
    "CREATE TABLE queue_batches ("
    " name text PRIMARY KEY,"
    " settings_json text NOT NULL,"
    " created_at timestamptz NOT NULL DEFAULT now());"
    "CREATE TABLE queue_goals ("
    " batch text NOT NULL REFERENCES queue_batches (name) ON DELETE CASCADE,"
    " id text NOT NULL,"
    " seq bigserial NOT NULL,"
    " spec_json text NOT NULL,"
    " state text NOT NULL DEFAULT 'queued'"
    "  CHECK (state IN ('queued', 'running', 'done', 'failed')),"
    " worker text NOT NULL DEFAULT '',"
    " lease_until timestamptz,"
    " tries integer NOT NULL DEFAULT 0,"
    " session_id text NOT NULL DEFAULT '',"
    " status text NOT NULL DEFAULT '',"
    " result_json text NOT NULL DEFAULT '',"
    " verified boolean NOT NULL DEFAULT false,"
    " tokens bigint NOT NULL DEFAULT 0,"
    " cost_usd double precision NOT NULL DEFAULT 0,"
    " finished_at timestamptz,"
    " checkpoint text NOT NULL DEFAULT '',"
    " PRIMARY KEY (batch, id));"
    // What claim() scans: only the goals not finished, in order.
    "CREATE INDEX queue_goals_open ON queue_goals (seq) WHERE state IN ('queued', 'running');",
    // A cost no model had a price for is unknown, not 0.
    "ALTER TABLE queue_goals ADD COLUMN cost_known boolean NOT NULL DEFAULT true;",
    // A worker's heartbeat: when it last claimed or renewed the goal (NULL: before this step).
    "ALTER TABLE queue_goals ADD COLUMN renewed_at timestamptz;"};

} // namespace

std::span<const std::string_view> session_schema() {
  return k_session_schema;
}

std::span<const std::string_view> queue_schema() {
  return k_queue_schema;
}

} // namespace ralph::store::pg
