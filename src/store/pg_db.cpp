#include "store/pg_db.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/core/url.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <libpq-fe.h>
#include <thread>

namespace ralph::store::pg {
namespace {

// SQLSTATEs after which the same work may succeed when run again: the connection (class 08),
// the server going down or starting (57P01-57P03), too many connections, and transactions
// PostgreSQL aborted to keep concurrent ones consistent.
bool retryable_state(std::string_view state) {
  return state.starts_with("08") || state == "57P01" || state == "57P02" || state == "57P03" ||
         state == "53300" || state == "40001" || state == "40P01";
}

// Failures to connect that waiting cannot mend; anything else (refused, reset, a server
// starting or shutting down, a timeout) is worth another try.
bool permanent_connect_failure(std::string_view message) {
  static constexpr std::array<std::string_view, 7> k_permanent{"password authentication failed",
                                                               "does not exist",
                                                               "no pg_hba.conf entry",
                                                               "invalid connection option",
                                                               "invalid URI",
                                                               "missing \"=\"",
                                                               "no password supplied"};
  return std::any_of(k_permanent.begin(), k_permanent.end(), [&](std::string_view phrase) {
    return message.find(phrase) != std::string_view::npos;
  });
}

// libpq's messages end with a newline and may span lines; one line for ours.
std::string one_line(std::string_view message) {
  std::string line(message);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) {
    line.pop_back();
  }
  std::replace(line.begin(), line.end(), '\n', ' ');
  return line;
}

template <typename Int> Int parse_int(const char* text) {
  Int value = 0;
  const std::string_view view(text);
  std::from_chars(view.data(), view.data() + view.size(), value);
  return value;
}

} // namespace

Params& Params::add(std::string_view text) {
  // PostgreSQL's text holds neither NUL nor invalid UTF-8 (in a UTF8 database) and refuses the
  // whole statement: a run must not fail because a tool printed a binary byte.
  if (text.find('\0') == std::string_view::npos && is_valid_utf8(text)) {
    m_values.emplace_back(std::string(text));
    return *this;
  }
  std::string clean = to_valid_utf8(text);
  for (std::size_t at = clean.find('\0'); at != std::string::npos; at = clean.find('\0', at)) {
    clean.replace(at, 1, "\uFFFD");
  }
  m_values.emplace_back(std::move(clean));
  return *this;
}

Params& Params::add(std::int64_t value) {
  m_values.emplace_back(std::to_string(value));
  return *this;
}

Params& Params::add(bool value) {
  m_values.emplace_back(value ? "true" : "false");
  return *this;
}

Params& Params::add(double value) {
  m_values.emplace_back(fmt::format("{}", value));
  return *this;
}

Params& Params::add(const std::optional<int>& value) {
  return value ? add(*value) : add_null();
}

Params& Params::add_null() {
  m_values.emplace_back(std::nullopt);
  return *this;
}

Rows::Rows(pg_result* result) : m_result(result) {}

Rows::Rows(Rows&& other) noexcept : m_result(std::exchange(other.m_result, nullptr)) {}

Rows& Rows::operator=(Rows&& other) noexcept {
  if (this != &other) {
    PQclear(m_result);
    m_result = std::exchange(other.m_result, nullptr);
  }
  return *this;
}

Rows::~Rows() {
  PQclear(m_result);
}

int Rows::size() const {
  return m_result ? PQntuples(m_result) : 0;
}

std::int64_t Rows::affected() const {
  return m_result ? parse_int<std::int64_t>(PQcmdTuples(m_result)) : 0;
}

bool Rows::is_null(int row, int column) const {
  return PQgetisnull(m_result, row, column) != 0;
}

std::string Rows::text(int row, int column) const {
  return std::string(PQgetvalue(m_result, row, column),
                     static_cast<std::size_t>(PQgetlength(m_result, row, column)));
}

std::int64_t Rows::integer(int row, int column) const {
  return parse_int<std::int64_t>(PQgetvalue(m_result, row, column));
}

double Rows::real(int row, int column) const {
  const char* text = PQgetvalue(m_result, row, column);
  return *text ? std::strtod(text, nullptr) : 0.0;
}

bool Rows::boolean(int row, int column) const {
  return PQgetvalue(m_result, row, column)[0] == 't';
}

std::optional<int> Rows::optional_int(int row, int column) const {
  if (is_null(row, column)) {
    return std::nullopt;
  }
  return parse_int<int>(PQgetvalue(m_result, row, column));
}

Connection::Connection(std::string url, RetryPolicy retry)
    : m_url(std::move(url)), m_shown(url_without_password(m_url)), m_retry(retry) {}

Connection::~Connection() {
  PQfinish(m_conn);
}

Result<std::unique_ptr<Connection>> Connection::open(std::string url, RetryPolicy retry) {
  std::unique_ptr<Connection> db(new Connection(std::move(url), retry));
  const auto deadline = std::chrono::steady_clock::now() + retry.give_up_after;
  for (int tries = 0;; ++tries) {
    auto connected = db->connect();
    if (connected) {
      return db;
    }
    if (!connected.error().retryable ||
        !db->pause_before_retry(tries, deadline, connected.error())) {
      return tl::unexpected(std::move(connected).error());
    }
  }
}

Result<void> Connection::connect() {
  PQfinish(std::exchange(m_conn, nullptr));
  m_prepared.clear();
  // Defaults first: the URL's own settings, expanded from `dbname`, override them. Keepalives
  // and a TCP user timeout make a dropped network an error within seconds, not a hang.
  const std::array<const char*, 9> keys{"connect_timeout",
                                        "fallback_application_name",
                                        "keepalives",
                                        "keepalives_idle",
                                        "keepalives_interval",
                                        "keepalives_count",
                                        "tcp_user_timeout",
                                        "dbname",
                                        nullptr};
  const std::array<const char*, 9> values{"10", "ralph", "1",           "10",   "5",
                                          "3",  "30000", m_url.c_str(), nullptr};
  m_conn = PQconnectdbParams(keys.data(), values.data(), 1);
  if (m_conn == nullptr) {
    return fail(error("connect", "out of memory"));
  }
  if (PQstatus(m_conn) != CONNECTION_OK) {
    const std::string message = one_line(PQerrorMessage(m_conn));
    m_connect_failure = message;
    return fail(error("connect", message, !permanent_connect_failure(message)));
  }
  m_connect_failure.clear();
  // NOTICEs (a table that already exists, say) are not errors and must not reach the terminal.
  PQsetNoticeProcessor(
      m_conn, [](void*, const char*) {}, nullptr);
  return {};
}

std::string Connection::not_connected() const {
  return m_connect_failure.empty() ? "not connected" : "not connected (" + m_connect_failure + ")";
}

Error Connection::error(std::string_view what, std::string_view message, bool retryable) const {
  Error e;
  e.kind = ErrorKind::store;
  e.message = fmt::format("{}: {}: {}", m_shown, what, message);
  e.file = m_shown;
  e.retryable = retryable;
  return e;
}

bool Connection::pause_before_retry(int tries, std::chrono::steady_clock::time_point deadline,
                                    Error& last) {
  const auto pause = std::min(m_retry.max_pause, m_retry.first_pause * (1 << std::min(tries, 16)));
  if (std::chrono::steady_clock::now() + pause >= deadline) {
    last.message += fmt::format(" (retried for {:.1f} s)",
                                static_cast<double>(m_retry.give_up_after.count()) / 1000.0);
    last.retryable = false;
    return false;
  }
  std::this_thread::sleep_for(pause);
  // A failed reconnect shows as the next try's failure, itself retried until the deadline.
  (void)connect();
  return true;
}

Result<Rows> Connection::checked(pg_result* result, std::string_view what) {
  Rows rows(result);
  const ExecStatusType status = result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
    return rows;
  }
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  const bool broken = m_conn == nullptr || PQstatus(m_conn) != CONNECTION_OK;
  const std::string message =
      one_line(result ? PQresultErrorMessage(result) : (m_conn ? PQerrorMessage(m_conn) : ""));
  return fail(error(what, message.empty() ? "connection lost" : message,
                    broken || (state != nullptr && retryable_state(state))));
}

Result<Rows> Connection::query(std::string_view sql, const Params& params, std::string_view what) {
  if (m_conn == nullptr || PQstatus(m_conn) != CONNECTION_OK) {
    return fail(error(what, not_connected(), true));
  }
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& value : params.m_values) {
    values.push_back(value ? value->c_str() : nullptr);
  }
  const int count = static_cast<int>(values.size());
  std::string key(sql);
  auto found = m_prepared.find(key);
  if (found == m_prepared.end()) {
    std::string name = fmt::format("ralph_{}", m_prepared.size() + 1);
    TRY(checked(PQprepare(m_conn, name.c_str(), key.c_str(), count, nullptr), what));
    found = m_prepared.emplace(std::move(key), std::move(name)).first;
  }
  return checked(
      PQexecPrepared(m_conn, found->second.c_str(), count, values.data(), nullptr, nullptr, 0),
      what);
}

Result<void> Connection::begin(std::string_view what, Commit commit) {
  m_notify.clear();
  m_unflushed = commit == Commit::unflushed;
  if (commit == Commit::flushed) {
    TRY(query("BEGIN", what));
    return {};
  }
  return exec("BEGIN; SET LOCAL synchronous_commit = off", what);
}

void Connection::notify(std::string payload) {
  if (std::find(m_notify.begin(), m_notify.end(), payload) == m_notify.end()) {
    m_notify.push_back(std::move(payload));
  }
}

Result<void> Connection::commit_notifying(std::string_view what) {
  if (m_notify.empty()) {
    TRY(query("COMMIT", what));
    return {};
  }
  if (m_conn == nullptr || PQstatus(m_conn) != CONNECTION_OK) {
    return fail(error(what, not_connected(), true));
  }
  std::string notify = "SELECT ";
  for (const std::string& payload : m_notify) {
    char* literal = PQescapeLiteral(m_conn, payload.data(), payload.size());
    if (literal == nullptr) {
      return fail(error(what, one_line(PQerrorMessage(m_conn))));
    }
    notify += fmt::format("{}pg_notify('{}', {})", notify.size() > 7 ? ", " : "", k_changes_channel,
                          literal);
    PQfreemem(literal);
  }
  m_notify.clear();
  // A transaction that notifies holds a lock of the whole server from its COMMIT until it ends,
  // so that notifications queue in commit order: every notifying commit waits for the one before.
  // An unflushed commit ends at once, so the notifications go in it, before COMMIT. A flushed one
  // would hold that lock through its WAL flush and serialise every durable write of every ralph
  // (measured: 8 writers, 36-88% fewer commits a second); its notifications go in a transaction of
  // their own right after it, unflushed. Either way it is one message, one round trip, and a
  // listener hears of a write only once it is visible, never of one rolled back.
  const bool after = !m_unflushed;
  const std::string sql =
      after ? "COMMIT; BEGIN; SET LOCAL synchronous_commit = off; " + notify + "; COMMIT"
            : notify + "; COMMIT";
  if (PQsendQuery(m_conn, sql.c_str()) == 0) {
    return fail(error(what, one_line(PQerrorMessage(m_conn)), true));
  }
  // Each statement's result in turn; after a failure the server skips the rest. The write is
  // committed once its own COMMIT succeeded (the first statement, when `after`): a failure past
  // it loses only the announcement, as a listener's outage would.
  Result<void> outcome;
  for (int index = 0; pg_result* result = PQgetResult(m_conn); ++index) {
    auto done = checked(result, what);
    if (!done && outcome && !(after && index > 0)) {
      outcome = tl::unexpected(std::move(done).error());
    }
  }
  if (PQstatus(m_conn) == CONNECTION_OK && PQtransactionStatus(m_conn) == PQTRANS_INERROR) {
    PQclear(PQexec(m_conn, "ROLLBACK"));
  }
  return outcome;
}

Result<void> Connection::listen() {
  return exec(fmt::format("LISTEN {}", k_changes_channel), "listen for changes");
}

int Connection::socket() const {
  return m_conn == nullptr ? -1 : PQsocket(m_conn);
}

Result<std::vector<std::string>> Connection::received() {
  if (m_conn == nullptr || PQstatus(m_conn) != CONNECTION_OK) {
    return fail(error("listen for changes", not_connected(), true));
  }
  if (PQconsumeInput(m_conn) == 0 || PQstatus(m_conn) != CONNECTION_OK) {
    const std::string message = one_line(PQerrorMessage(m_conn));
    return fail(error("listen for changes", message.empty() ? "connection lost" : message, true));
  }
  std::vector<std::string> payloads;
  while (PGnotify* note = PQnotifies(m_conn)) {
    payloads.emplace_back(note->extra);
    PQfreemem(note);
  }
  return payloads;
}

Result<void> Connection::exec(const std::string& sql, std::string_view what) {
  if (m_conn == nullptr || PQstatus(m_conn) != CONNECTION_OK) {
    return fail(error(what, not_connected(), true));
  }
  TRY(checked(PQexec(m_conn, sql.c_str()), what));
  return {};
}

Result<void> migrate(Connection& db, std::string_view track,
                     std::span<const std::string_view> steps) {
  return db.transaction("migrate the schema", [&](Connection& c) -> Result<void> {
    // Any fixed key: every ralph process serialises its migrations on it.
    TRY(c.query("SELECT pg_advisory_xact_lock(7261001)", "lock the schema"));
    TRY(c.exec("CREATE TABLE IF NOT EXISTS ralph_schema ("
               "track text PRIMARY KEY, version integer NOT NULL)",
               "create ralph_schema"));
    TRY_ASSIGN(const Rows found, c.query("SELECT version FROM ralph_schema WHERE track = $1",
                                         Params().add(track), "read the schema version"));
    const std::int64_t current = found.empty() ? 0 : found.integer(0, 0);
    const auto known = static_cast<std::int64_t>(steps.size());
    if (current > known) {
      return fail(c.error("migrate the schema",
                          fmt::format("the {} tables are at version {}, newer than this ralph "
                                      "knows ({}); use a newer ralph",
                                      track, current, known)));
    }
    for (auto version = current; version < known; ++version) {
      TRY(c.exec(std::string(steps[static_cast<std::size_t>(version)]),
                 "apply a schema migration"));
    }
    if (current < known) {
      TRY(c.query("INSERT INTO ralph_schema (track, version) VALUES ($1, $2) "
                  "ON CONFLICT (track) DO UPDATE SET version = EXCLUDED.version",
                  Params().add(track).add(known), "record the schema version"));
    }
    return {};
  });
}

} // namespace ralph::store::pg
