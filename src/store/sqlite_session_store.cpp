#include "ralph/store/sqlite_session_store.h"

#include "store/sqlite_db.h"
#include "store/sqlite_schema.h"
#include "store/sqlite_tables.h"

#include <fmt/format.h>

#include <cerrno>
#include <limits>
#include <signal.h>
#include <utility>

namespace ralph::store {
namespace {

using sqlite::Database;
using sqlite::Transaction;

// Runs `work` (returning Result<T>) in one BEGIN IMMEDIATE transaction and commits it; any
// failure rolls everything back.
template <typename T, typename Work> Result<T> in_write(Database& db, const Work& work) {
  auto transaction = Transaction::write(db);
  if (!transaction) {
    return fail(std::move(transaction.error()));
  }
  Result<T> result = work();
  if (!result) {
    return result;
  }
  if (auto committed = transaction->commit(); !committed) {
    return fail(std::move(committed.error()));
  }
  return result;
}

Result<void> require(Database& db, const Result<bool>& updated, std::string_view what,
                     const std::string& id) {
  if (!updated) {
    return fail(updated.error());
  }
  if (!*updated) {
    return fail(db.error_message(fmt::format("{}: no session {}", what, id)));
  }
  return {};
}

// A session is owned while its owner_pid names a live process. EPERM means the process exists
// but belongs to another user; only ESRCH proves it is gone.
bool owner_alive(std::int64_t pid) {
  if (pid <= 0) {
    return false;
  }
  if (pid > std::numeric_limits<pid_t>::max()) {
    return false;
  }
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

} // namespace

struct SqliteSessionStore::Impl {
  std::unique_ptr<Database> db;
};

SqliteSessionStore::SqliteSessionStore(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

SqliteSessionStore::~SqliteSessionStore() = default;

Result<std::unique_ptr<SqliteSessionStore>>
SqliteSessionStore::open(const std::filesystem::path& path) {
  auto db = Database::open(path);
  if (!db) {
    return fail(std::move(db.error()));
  }
  if (auto migrated = sqlite::migrate(**db, sqlite::session_schema()); !migrated) {
    return fail(std::move(migrated.error()));
  }
  auto impl = std::make_unique<Impl>();
  impl->db = std::move(*db);
  return std::unique_ptr<SqliteSessionStore>(new SqliteSessionStore(std::move(impl)));
}

int SqliteSessionStore::schema_version() {
  return static_cast<int>(sqlite::session_schema().size());
}

Result<void> SqliteSessionStore::create_session(const SessionRow& session) {
  Database& db = *m_impl->db;
  return in_write<void>(db, [&] { return sqlite::insert_session(db, session); });
}

Result<void> SqliteSessionStore::update_session(const SessionRow& session) {
  Database& db = *m_impl->db;
  return in_write<void>(db, [&] {
    return require(db, sqlite::update_session(db, session), "update session", session.id);
  });
}

Result<std::optional<SessionRow>> SqliteSessionStore::find_session(const std::string& id) {
  // One statement is its own transaction.
  return sqlite::select_session(*m_impl->db, id);
}

Result<std::vector<SessionRow>> SqliteSessionStore::list_sessions() {
  return sqlite::select_sessions(*m_impl->db);
}

Result<std::optional<SessionRecord>> SqliteSessionStore::load(const std::string& id) {
  Database& db = *m_impl->db;
  // One read transaction: a snapshot, never half of another process's write.
  auto transaction = Transaction::read(db);
  if (!transaction) {
    return fail(std::move(transaction.error()));
  }
  auto session = sqlite::select_session(db, id);
  if (!session) {
    return fail(std::move(session.error()));
  }
  if (!*session) {
    return std::nullopt;
  }
  SessionRecord record;
  record.session = std::move(**session);
  auto attempts = sqlite::select_attempts(db, id);
  if (!attempts) {
    return fail(std::move(attempts.error()));
  }
  record.attempts = std::move(*attempts);
  auto model_calls = sqlite::select_model_calls(db, id);
  if (!model_calls) {
    return fail(std::move(model_calls.error()));
  }
  record.model_calls = std::move(*model_calls);
  auto tool_calls = sqlite::select_tool_calls(db, id);
  if (!tool_calls) {
    return fail(std::move(tool_calls.error()));
  }
  record.tool_calls = std::move(*tool_calls);
  auto verdicts = sqlite::select_verdicts(db, id);
  if (!verdicts) {
    return fail(std::move(verdicts.error()));
  }
  record.verdicts = std::move(*verdicts);
  if (auto committed = transaction->commit(); !committed) {
    return fail(std::move(committed.error()));
  }
  return record;
}

Result<bool> SqliteSessionStore::remove_session(const std::string& id) {
  Database& db = *m_impl->db;
  return in_write<bool>(db, [&] { return sqlite::delete_session(db, id); });
}

Result<std::vector<std::string>> SqliteSessionStore::prune(const std::string& cutoff) {
  Database& db = *m_impl->db;
  // Owners are checked under the write lock, so a session cannot be taken over between the
  // check and the delete by a process that updates it (which would need the lock).
  return in_write<std::vector<std::string>>(db, [&]() -> Result<std::vector<std::string>> {
    auto candidates = sqlite::select_sessions_updated_before(db, cutoff);
    if (!candidates) {
      return fail(std::move(candidates.error()));
    }
    std::vector<std::string> removed;
    for (const auto& candidate : *candidates) {
      if (owner_alive(candidate.owner_pid)) {
        continue;
      }
      auto deleted = sqlite::delete_session(db, candidate.id);
      if (!deleted) {
        return fail(std::move(deleted.error()));
      }
      removed.push_back(candidate.id);
    }
    return removed;
  });
}

Result<void> SqliteSessionStore::save_attempt(const AttemptRow& attempt) {
  Database& db = *m_impl->db;
  return in_write<void>(db, [&] { return sqlite::upsert_attempt(db, attempt); });
}

Result<void> SqliteSessionStore::finish_attempt(const AttemptRow& attempt,
                                                const std::vector<VerdictRow>& verdicts,
                                                const SessionRow& session) {
  Database& db = *m_impl->db;
  return in_write<void>(db, [&]() -> Result<void> {
    if (auto saved = sqlite::upsert_attempt(db, attempt); !saved) {
      return saved;
    }
    // The attempt's verdicts are replaced, not added to, so finishing it again (a retry after a
    // failed commit, a resumed run) never duplicates them.
    if (auto cleared = sqlite::delete_verdicts(db, attempt.session_id, attempt.iteration);
        !cleared) {
      return cleared;
    }
    for (const VerdictRow& verdict : verdicts) {
      if (auto inserted = sqlite::insert_verdict(db, verdict); !inserted) {
        return inserted;
      }
    }
    // The whole row, not only the counters: the resume point moves with every attempt.
    return require(db, sqlite::update_session(db, session), "finish attempt", session.id);
  });
}

Result<void> SqliteSessionStore::add_model_call(const ModelCallRow& call,
                                                const SessionRow& session) {
  Database& db = *m_impl->db;
  return in_write<void>(db, [&]() -> Result<void> {
    // The session first, so a missing one is reported as such rather than as a foreign key.
    if (auto updated =
            require(db, sqlite::update_session_counters(db, session), "add model call", session.id);
        !updated) {
      return updated;
    }
    return sqlite::insert_model_call(db, call);
  });
}

Result<void> SqliteSessionStore::add_tool_call(const ToolCallRow& call) {
  Database& db = *m_impl->db;
  return in_write<void>(db, [&] { return sqlite::insert_tool_call(db, call); });
}

} // namespace ralph::store
