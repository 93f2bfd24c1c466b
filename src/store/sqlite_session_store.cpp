#include "ralph/store/sqlite_session_store.h"

#include "store/sqlite_db.h"
#include "store/sqlite_schema.h"
#include "store/sqlite_tables.h"

#include "ralph/core/try.h"
#include "ralph/store/session_owner.h"

#include <fmt/format.h>

#include <mutex>
#include <utility>

namespace ralph::store {
namespace {

using sqlite::Database;
using sqlite::Sync;
using sqlite::Transaction;

// Runs `work` (returning Result<T>) in one BEGIN IMMEDIATE transaction and commits it as far as
// `sync` says; any failure rolls everything back.
template <typename T, typename Work> Result<T> in_write(Database& db, Sync sync, const Work& work) {
  TRY_ASSIGN(Transaction transaction, Transaction::write(db, sync));
  Result<T> result = work();
  TRY(result);
  TRY(transaction.commit());
  return result;
}

Result<void> require(Database& db, const Result<bool>& updated, std::string_view what,
                     const std::string& id) {
  TRY_ASSIGN(const bool found, updated);
  if (!found) {
    return fail(db.error_message(fmt::format("{}: no session {}", what, id)));
  }
  return {};
}

} // namespace

struct SqliteSessionStore::Impl {
  std::mutex mutex; // one method at a time on the one connection
  std::unique_ptr<Database> db;
};

SqliteSessionStore::SqliteSessionStore(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

SqliteSessionStore::~SqliteSessionStore() = default;

Result<std::unique_ptr<SqliteSessionStore>>
SqliteSessionStore::open(const std::filesystem::path& path) {
  TRY_ASSIGN(std::unique_ptr<Database> db, Database::open(path));
  TRY(sqlite::migrate(*db, sqlite::session_schema()));
  auto impl = std::make_unique<Impl>();
  impl->db = std::move(db);
  return std::unique_ptr<SqliteSessionStore>(new SqliteSessionStore(std::move(impl)));
}

int SqliteSessionStore::schema_version() {
  return static_cast<int>(sqlite::session_schema().size());
}

Result<void> SqliteSessionStore::create_session(const SessionRow& session) {
  const std::scoped_lock lock(m_impl->mutex);
  Database& db = *m_impl->db;
  return in_write<void>(db, Sync::disk, [&] { return sqlite::insert_session(db, session); });
}

Result<void> SqliteSessionStore::update_session(const SessionRow& session) {
  const std::scoped_lock lock(m_impl->mutex);
  Database& db = *m_impl->db;
  return in_write<void>(db, Sync::disk, [&] {
    return require(db, sqlite::update_session(db, session), "update session", session.id);
  });
}

Result<std::optional<SessionRow>> SqliteSessionStore::find_session(const std::string& id) {
  const std::scoped_lock lock(m_impl->mutex);
  // One statement is its own transaction.
  return sqlite::select_session(*m_impl->db, id);
}

Result<std::vector<SessionRow>> SqliteSessionStore::list_sessions() {
  const std::scoped_lock lock(m_impl->mutex);
  return sqlite::select_sessions(*m_impl->db);
}

Result<std::optional<SessionRecord>> SqliteSessionStore::load(const std::string& id) {
  const std::scoped_lock lock(m_impl->mutex);
  Database& db = *m_impl->db;
  // One read transaction: a snapshot, never half of another process's write.
  TRY_ASSIGN(Transaction transaction, Transaction::read(db));
  TRY_ASSIGN(std::optional<SessionRow> session, sqlite::select_session(db, id));
  if (!session) {
    return std::nullopt;
  }
  SessionRecord record;
  record.session = std::move(*session);
  TRY_ASSIGN(record.attempts, sqlite::select_attempts(db, id));
  TRY_ASSIGN(record.model_calls, sqlite::select_model_calls(db, id));
  TRY_ASSIGN(record.tool_calls, sqlite::select_tool_calls(db, id));
  TRY_ASSIGN(record.verdicts, sqlite::select_verdicts(db, id));
  TRY(transaction.commit());
  return record;
}

Result<bool> SqliteSessionStore::remove_session(const std::string& id) {
  const std::scoped_lock lock(m_impl->mutex);
  Database& db = *m_impl->db;
  return in_write<bool>(db, Sync::disk, [&] { return sqlite::delete_session(db, id); });
}

Result<std::vector<std::string>> SqliteSessionStore::prune(const std::string& cutoff) {
  const std::scoped_lock lock(m_impl->mutex);
  Database& db = *m_impl->db;
  // Owners are checked under the write lock, so a session cannot be taken over between the
  // check and the delete by a process that updates it (which would need the lock).
  return in_write<std::vector<std::string>>(
      db, Sync::disk, [&]() -> Result<std::vector<std::string>> {
        TRY_ASSIGN(const std::vector<sqlite::SessionOwner> candidates,
                   sqlite::select_sessions_updated_before(db, cutoff));
        std::vector<std::string> removed;
        for (const auto& candidate : candidates) {
          if (owner_alive(candidate.owner_pid, candidate.owner_host)) {
            continue;
          }
          TRY(sqlite::delete_session(db, candidate.id));
          removed.push_back(candidate.id);
        }
        return removed;
      });
}

Result<void> SqliteSessionStore::save_attempt(const AttemptRow& attempt) {
  const std::scoped_lock lock(m_impl->mutex);
  Database& db = *m_impl->db;
  // A finished attempt goes through finish_attempt; one saved finished here is as durable.
  const Sync sync = attempt.finished ? Sync::disk : Sync::page_cache;
  return in_write<void>(db, sync, [&] { return sqlite::upsert_attempt(db, attempt); });
}

Result<void> SqliteSessionStore::finish_attempt(const AttemptRow& attempt,
                                                const std::vector<VerdictRow>& verdicts,
                                                const SessionRow& session) {
  const std::scoped_lock lock(m_impl->mutex);
  Database& db = *m_impl->db;
  return in_write<void>(db, Sync::disk, [&]() -> Result<void> {
    TRY(sqlite::upsert_attempt(db, attempt));
    // The attempt's verdicts are replaced, not added to, so finishing it again (a retry after a
    // failed commit, a resumed run) never duplicates them.
    TRY(sqlite::delete_verdicts(db, attempt.session_id, attempt.iteration));
    for (const VerdictRow& verdict : verdicts) {
      TRY(sqlite::insert_verdict(db, verdict));
    }
    // The whole row, not only the counters: the resume point moves with every attempt.
    return require(db, sqlite::update_session(db, session), "finish attempt", session.id);
  });
}

Result<void> SqliteSessionStore::add_model_call(const ModelCallRow& call,
                                                const SessionRow& session) {
  const std::scoped_lock lock(m_impl->mutex);
  Database& db = *m_impl->db;
  return in_write<void>(db, Sync::page_cache, [&]() -> Result<void> {
    // The session first, so a missing one is reported as such rather than as a foreign key.
    TRY(require(db, sqlite::update_session_counters(db, session), "add model call", session.id));
    return sqlite::insert_model_call(db, call);
  });
}

Result<void> SqliteSessionStore::add_tool_call(const ToolCallRow& call) {
  const std::scoped_lock lock(m_impl->mutex);
  Database& db = *m_impl->db;
  return in_write<void>(db, Sync::page_cache, [&] { return sqlite::insert_tool_call(db, call); });
}

Result<bool> SqliteSessionStore::put_record(const SessionRecord& record, bool replace) {
  const std::scoped_lock lock(m_impl->mutex);
  Database& db = *m_impl->db;
  return in_write<bool>(db, Sync::disk, [&]() -> Result<bool> {
    TRY_ASSIGN(const std::optional<SessionRow> there,
               sqlite::select_session(db, record.session.id));
    if (there && !replace) {
      return false;
    }
    TRY(sqlite::delete_session(db, record.session.id));
    TRY(sqlite::insert_session(db, record.session));
    for (const AttemptRow& attempt : record.attempts) {
      TRY(sqlite::upsert_attempt(db, attempt));
    }
    for (const ModelCallRow& call : record.model_calls) {
      TRY(sqlite::insert_model_call(db, call));
    }
    for (const ToolCallRow& call : record.tool_calls) {
      TRY(sqlite::insert_tool_call(db, call));
    }
    for (const VerdictRow& verdict : record.verdicts) {
      TRY(sqlite::insert_verdict(db, verdict));
    }
    return true;
  });
}

} // namespace ralph::store
