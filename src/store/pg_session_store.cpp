#include "ralph/store/pg_session_store.h"

#include "store/pg_db.h"
#include "store/pg_schema.h"
#include "store/pg_tables.h"

#include "ralph/core/try.h"
#include "ralph/store/session_owner.h"

#include <fmt/format.h>

#include <mutex>
#include <random>
#include <utility>

namespace ralph::store {
namespace {

using pg::Connection;

Result<void> require(Connection& db, const Result<bool>& updated, std::string_view what,
                     const std::string& id) {
  TRY_ASSIGN(const bool found, updated);
  if (!found) {
    return fail(db.error(what, fmt::format("no session {}", id)));
  }
  return {};
}

// What a ChangeFeed hears of when the transaction commits.
void announce(Connection& db, const std::string& id) {
  db.notify("session:" + id);
}

} // namespace

struct PgSessionStore::Impl {
  std::mutex mutex; // one method at a time on the one connection
  std::unique_ptr<Connection> db;
  std::mt19937_64 keys{std::random_device{}()};

  // A step's write key (pg_schema.cpp): positive, drawn before its transaction so a rerun
  // writes the same one.
  std::int64_t write_key() { return static_cast<std::int64_t>(keys() >> 1U) | 1; }
};

PgSessionStore::PgSessionStore(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

PgSessionStore::~PgSessionStore() = default;

Result<std::unique_ptr<PgSessionStore>> PgSessionStore::open(const std::string& url,
                                                             std::chrono::milliseconds retry_for) {
  pg::RetryPolicy retry;
  retry.give_up_after = retry_for;
  TRY_ASSIGN(std::unique_ptr<Connection> db, Connection::open(url, retry));
  TRY(pg::migrate(*db, "sessions", pg::session_schema()));
  auto impl = std::make_unique<Impl>();
  impl->db = std::move(db);
  return std::unique_ptr<PgSessionStore>(new PgSessionStore(std::move(impl)));
}

int PgSessionStore::schema_version() {
  return static_cast<int>(pg::session_schema().size());
}

Result<void> PgSessionStore::create_session(const SessionRow& session) {
  const std::scoped_lock lock(m_impl->mutex);
  int runs = 0;
  return m_impl->db->transaction("create session", [&](Connection& db) -> Result<void> {
    ++runs;
    TRY_ASSIGN(const bool created, pg::insert_session(db, session));
    // A row already there on a second run is the first run's, committed before its COMMIT
    // reply was lost; on the first run it is another session's.
    if (!created && runs == 1) {
      return fail(db.error("create session", fmt::format("session {} already exists", session.id)));
    }
    announce(db, session.id);
    return {};
  });
}

Result<void> PgSessionStore::update_session(const SessionRow& session) {
  const std::scoped_lock lock(m_impl->mutex);
  return m_impl->db->transaction("update session", [&](Connection& db) {
    announce(db, session.id);
    return require(db, pg::update_session(db, session), "update session", session.id);
  });
}

Result<std::optional<SessionRow>> PgSessionStore::find_session(const std::string& id) {
  const std::scoped_lock lock(m_impl->mutex);
  return m_impl->db->transaction("find session",
                                 [&](Connection& db) { return pg::select_session(db, id); });
}

Result<std::vector<SessionRow>> PgSessionStore::list_sessions() {
  const std::scoped_lock lock(m_impl->mutex);
  return m_impl->db->transaction("list sessions",
                                 [&](Connection& db) { return pg::select_sessions(db); });
}

Result<std::optional<SessionRecord>> PgSessionStore::load(const std::string& id) {
  const std::scoped_lock lock(m_impl->mutex);
  // REPEATABLE READ: one snapshot for all five reads, never half of another process's write.
  return m_impl->db->transaction(
      "load session", [&](Connection& db) -> Result<std::optional<SessionRecord>> {
        TRY(db.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", "load session"));
        TRY_ASSIGN(std::optional<SessionRow> session, pg::select_session(db, id));
        if (!session) {
          return std::nullopt;
        }
        SessionRecord record;
        record.session = std::move(*session);
        TRY_ASSIGN(record.attempts, pg::select_attempts(db, id));
        TRY_ASSIGN(record.model_calls, pg::select_model_calls(db, id));
        TRY_ASSIGN(record.tool_calls, pg::select_tool_calls(db, id));
        TRY_ASSIGN(record.verdicts, pg::select_verdicts(db, id));
        return record;
      });
}

Result<bool> PgSessionStore::remove_session(const std::string& id) {
  const std::scoped_lock lock(m_impl->mutex);
  return m_impl->db->transaction("remove session", [&](Connection& db) {
    announce(db, id);
    return pg::delete_session(db, id);
  });
}

Result<std::vector<std::string>> PgSessionStore::prune(const std::string& cutoff) {
  const std::scoped_lock lock(m_impl->mutex);
  // The candidates are locked (FOR UPDATE) while their owners are checked, so a process that
  // takes one over meanwhile waits for the delete, then finds no session.
  return m_impl->db->transaction("prune sessions",
                                 [&](Connection& db) -> Result<std::vector<std::string>> {
                                   TRY_ASSIGN(const std::vector<pg::SessionOwner> candidates,
                                              pg::select_sessions_updated_before(db, cutoff));
                                   std::vector<std::string> removed;
                                   for (const auto& candidate : candidates) {
                                     if (owner_alive(candidate.owner_pid, candidate.owner_host)) {
                                       continue;
                                     }
                                     TRY(pg::delete_session(db, candidate.id));
                                     announce(db, candidate.id);
                                     removed.push_back(candidate.id);
                                   }
                                   return removed;
                                 });
}

Result<void> PgSessionStore::save_attempt(const AttemptRow& attempt) {
  const std::scoped_lock lock(m_impl->mutex);
  // A running attempt's, as its steps (the SessionStore contract).
  return m_impl->db->transaction(
      "save attempt",
      [&](Connection& db) {
        announce(db, attempt.session_id);
        return pg::upsert_attempt(db, attempt);
      },
      attempt.finished ? pg::Commit::flushed : pg::Commit::unflushed);
}

Result<void> PgSessionStore::finish_attempt(const AttemptRow& attempt,
                                            const std::vector<VerdictRow>& verdicts,
                                            const SessionRow& session) {
  const std::scoped_lock lock(m_impl->mutex);
  return m_impl->db->transaction("finish attempt", [&](Connection& db) -> Result<void> {
    announce(db, session.id);
    TRY(pg::upsert_attempt(db, attempt));
    // Replaced, not added to: finishing it again (a rerun, a resumed run) never duplicates them.
    TRY(pg::delete_verdicts(db, attempt.session_id, attempt.iteration));
    for (const VerdictRow& verdict : verdicts) {
      TRY(pg::insert_verdict(db, verdict));
    }
    return require(db, pg::update_session(db, session), "finish attempt", session.id);
  });
}

Result<void> PgSessionStore::add_model_call(const ModelCallRow& call, const SessionRow& session) {
  const std::scoped_lock lock(m_impl->mutex);
  const std::int64_t key = m_impl->write_key();
  return m_impl->db->transaction(
      "add model call",
      [&](Connection& db) -> Result<void> {
        // The session first, so a missing one is reported as such rather than as a foreign key.
        TRY(require(db, pg::update_session_counters(db, session), "add model call", session.id));
        announce(db, session.id);
        return pg::insert_model_call(db, call, key);
      },
      pg::Commit::unflushed);
}

Result<void> PgSessionStore::add_tool_call(const ToolCallRow& call) {
  const std::scoped_lock lock(m_impl->mutex);
  const std::int64_t key = m_impl->write_key();
  return m_impl->db->transaction(
      "add tool call",
      [&](Connection& db) {
        announce(db, call.session_id);
        return pg::insert_tool_call(db, call, key);
      },
      pg::Commit::unflushed);
}

Result<bool> PgSessionStore::put_record(const SessionRecord& record, bool replace) {
  const std::scoped_lock lock(m_impl->mutex);
  std::vector<std::int64_t> keys;
  for (std::size_t i = 0; i < record.model_calls.size() + record.tool_calls.size(); ++i) {
    keys.push_back(m_impl->write_key());
  }
  int runs = 0;
  return m_impl->db->transaction("copy session", [&](Connection& db) -> Result<bool> {
    ++runs;
    if (replace) {
      TRY(pg::delete_session(db, record.session.id));
    }
    announce(db, record.session.id);
    TRY_ASSIGN(const bool created, pg::insert_session(db, record.session));
    if (!created) {
      // On a rerun, the session found is the one the first run committed.
      return runs > 1;
    }
    for (const AttemptRow& attempt : record.attempts) {
      TRY(pg::upsert_attempt(db, attempt));
    }
    std::size_t key = 0;
    for (const ModelCallRow& call : record.model_calls) {
      TRY(pg::insert_model_call(db, call, keys[key++]));
    }
    for (const ToolCallRow& call : record.tool_calls) {
      TRY(pg::insert_tool_call(db, call, keys[key++]));
    }
    for (const VerdictRow& verdict : record.verdicts) {
      TRY(pg::insert_verdict(db, verdict));
    }
    return true;
  });
}

} // namespace ralph::store
