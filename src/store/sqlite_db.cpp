#include "store/sqlite_db.h"

#include "ralph/core/try.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <sys/file.h>
#include <unistd.h>
#include <unordered_map>
#include <utility>

namespace ralph::store::sqlite {
namespace {

namespace fs = std::filesystem;

// Long enough for another process's transaction (a few fsyncs) to finish, short enough that a
// process stuck holding the lock is reported instead of hanging a run.
constexpr int k_busy_timeout_ms = 10'000;

bool is_lock_error(int code) {
  const int primary = code & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

Error store_error(const fs::path& path, std::string message, bool retryable = false) {
  Error e;
  e.kind = ErrorKind::store;
  e.message = fmt::format("{}: {}", path.string(), message);
  e.file = path.string();
  e.retryable = retryable;
  return e;
}

// fsync on a folder makes the entries created in it (the database file, new subfolders)
// survive a power cut; SQLite syncs the folder only for the journal files it creates.
Result<void> sync_folder(const fs::path& db_path, const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int saved = errno;
    if (fd >= 0) {
      ::close(fd);
    }
    return fail(store_error(
        db_path, fmt::format("sync folder {}: {}", folder.string(), std::strerror(saved))));
  }
  ::close(fd);
  return {};
}

// Creates the parent folders of `path`; returns the outermost folder it had to create (empty
// when none), so the caller can sync the folders whose entries changed.
Result<fs::path> create_parents(const fs::path& path) {
  const fs::path parent = path.parent_path();
  if (parent.empty()) {
    return fs::path();
  }
  std::error_code ec;
  fs::path outermost;
  for (fs::path p = parent; !p.empty() && p != p.root_path() && !fs::exists(p, ec);
       p = p.parent_path()) {
    outermost = p;
  }
  fs::create_directories(parent, ec);
  if (ec) {
    return fail(
        store_error(path, fmt::format("create folder {}: {}", parent.string(), ec.message())));
  }
  return outermost;
}

Result<void> sync_new_entries(const fs::path& path, const fs::path& outermost_created) {
  const fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  TRY(sync_folder(path, parent));
  if (outermost_created.empty()) {
    return {};
  }
  for (fs::path p = path.parent_path(); p != outermost_created; p = p.parent_path()) {
    TRY(sync_folder(path, p.parent_path()));
  }
  const fs::path above =
      outermost_created.parent_path().empty() ? fs::path(".") : outermost_created.parent_path();
  return sync_folder(path, above);
}

// Why the file cannot be opened for writing, as an errno (0 when access() sees no reason).
// SQLite's own last errno is often from a later probe and misleading.
int access_error(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return EISDIR;
  }
  const bool exists = fs::exists(path, ec);
  const fs::path target =
      exists ? path : (path.parent_path().empty() ? fs::path(".") : path.parent_path());
  return ::access(target.c_str(), exists ? (R_OK | W_OK) : (W_OK | X_OK)) == 0 ? 0 : errno;
}

// Switches the file to WAL (a no-op once it is). The switch takes an exclusive lock, and SQLite
// answers SQLITE_BUSY to it without consulting the busy handler, so processes opening a new file
// at once would fail here; they wait like the busy handler would instead.
Result<void> use_wal(Database& db) {
  int waited_ms = 0;
  for (int pause_ms = 1;; pause_ms = std::min(pause_ms * 2, 100)) {
    TRY_ASSIGN(Statement wal, db.prepare("PRAGMA journal_mode=WAL", "set WAL journal mode"));
    auto row = wal.step();
    if (!row && row.error().retryable && waited_ms < k_busy_timeout_ms) {
      sqlite3_sleep(pause_ms);
      waited_ms += pause_ms;
      continue;
    }
    TRY_ASSIGN(const bool has_row, std::move(row));
    // The answer is the mode in force, which stays the old one where WAL is impossible (no
    // shared memory on the file system).
    const std::string mode = has_row ? wal.text(0) : std::string();
    if (mode != "wal") {
      return fail(db.error_message(
          fmt::format("set WAL journal mode: the file system allows only '{}'", mode)));
    }
    return {};
  }
}

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const {
    return std::hash<std::string_view>{}(text);
  }
};

} // namespace

struct Database::StatementCache {
  std::unordered_map<std::string, sqlite3_stmt*, StringHash, std::equal_to<>> statements;
};

// ---- Statement ----

Statement::Statement(Database& db, sqlite3_stmt* stmt, std::string_view what)
    : m_db(&db), m_stmt(stmt), m_what(what) {}

Statement::Statement(Statement&& other) noexcept
    : m_db(other.m_db), m_stmt(std::exchange(other.m_stmt, nullptr)), m_what(other.m_what),
      m_next(other.m_next), m_bind_error(other.m_bind_error) {}

Statement::~Statement() {
  if (m_stmt != nullptr) {
    // Ends the statement's read of the database and frees copies of large bound values now
    // rather than at the next use.
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
  }
}

Statement& Statement::bind(std::string_view text) {
  const int rc = sqlite3_bind_text64(m_stmt, m_next++, text.data(), text.size(), SQLITE_TRANSIENT,
                                     SQLITE_UTF8);
  if (rc != SQLITE_OK && m_bind_error == 0) {
    m_bind_error = rc;
  }
  return *this;
}

Statement& Statement::bind(std::int64_t value) {
  const int rc = sqlite3_bind_int64(m_stmt, m_next++, value);
  if (rc != SQLITE_OK && m_bind_error == 0) {
    m_bind_error = rc;
  }
  return *this;
}

Statement& Statement::bind(double value) {
  const int rc = sqlite3_bind_double(m_stmt, m_next++, value);
  if (rc != SQLITE_OK && m_bind_error == 0) {
    m_bind_error = rc;
  }
  return *this;
}

Statement& Statement::bind(const std::optional<int>& value) {
  if (value) {
    return bind(*value);
  }
  const int rc = sqlite3_bind_null(m_stmt, m_next++);
  if (rc != SQLITE_OK && m_bind_error == 0) {
    m_bind_error = rc;
  }
  return *this;
}

Result<bool> Statement::step() {
  if (m_bind_error != 0) {
    return fail(m_db->error_code(m_what, m_bind_error));
  }
  const int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc == SQLITE_DONE) {
    return false;
  }
  return fail(m_db->error(m_what));
}

Result<void> Statement::run() {
  for (;;) {
    TRY_ASSIGN(const bool has_row, step());
    if (!has_row) {
      return {};
    }
  }
}

std::string Statement::text(int column) const {
  // Text first, then its length: the documented order that avoids a conversion in between.
  const auto* data = sqlite3_column_text(m_stmt, column);
  const int size = sqlite3_column_bytes(m_stmt, column);
  if (data == nullptr) {
    return {};
  }
  return std::string(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
}

std::int64_t Statement::integer(int column) const {
  return sqlite3_column_int64(m_stmt, column);
}

double Statement::real(int column) const {
  return sqlite3_column_double(m_stmt, column);
}

std::optional<int> Statement::optional_int(int column) const {
  if (sqlite3_column_type(m_stmt, column) == SQLITE_NULL) {
    return std::nullopt;
  }
  return sqlite3_column_int(m_stmt, column);
}

// ---- Database ----

Database::Database(sqlite3* db, std::filesystem::path path, int writers_fd)
    : m_db(db), m_path(std::move(path)), m_cache(std::make_unique<StatementCache>()),
      m_writers_fd(writers_fd) {}

Database::~Database() {
  for (auto& [sql, stmt] : m_cache->statements) {
    sqlite3_finalize(stmt);
  }
  sqlite3_close(m_db);
  ::close(m_writers_fd);
}

Result<std::unique_ptr<Database>> Database::open(const std::filesystem::path& path) {
  std::error_code ec;
  const bool existed = fs::exists(path, ec);
  TRY_ASSIGN(const fs::path outermost_created, create_parents(path));
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    sqlite3_close(raw);
    if (const int cause = access_error(path); cause != 0) {
      message += fmt::format(" ({})", std::strerror(cause));
    }
    return fail(store_error(path, "open: " + message));
  }
  // The writers' queue (see lock_writers) beside the file, as SQLite's own -wal and -shm are.
  const fs::path writers = fs::path(path.string() + "-writers");
  const int writers_fd = ::open(writers.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (writers_fd < 0) {
    const int saved = errno;
    sqlite3_close(raw);
    return fail(
        store_error(path, fmt::format("open {}: {}", writers.string(), std::strerror(saved))));
  }
  std::unique_ptr<Database> db(new Database(raw, path, writers_fd));
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, k_busy_timeout_ms);

  TRY(use_wal(*db));
  // FULL until a writer asks for less (set_sync): what the connection reads or migrates at open
  // is durable.
  TRY(db->exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON", "set pragmas"));
  if (!existed) {
    TRY(sync_new_entries(path, outermost_created));
  }
  return db;
}

Result<Statement> Database::prepare(std::string_view sql, std::string_view what) {
  auto found = m_cache->statements.find(sql);
  if (found != m_cache->statements.end()) {
    return Statement(*this, found->second, what);
  }
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(m_db, sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return fail(error(what));
  }
  m_cache->statements.emplace(std::string(sql), stmt);
  return Statement(*this, stmt, what);
}

Result<void> Database::exec(const std::string& sql, std::string_view what) {
  if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    return fail(error(what));
  }
  return {};
}

std::int64_t Database::changes() const {
  return sqlite3_changes64(m_db);
}

Error Database::error(std::string_view what) const {
  const int code = sqlite3_extended_errcode(m_db);
  return store_error(m_path, fmt::format("{}: {}", what, sqlite3_errmsg(m_db)),
                     is_lock_error(code));
}

Error Database::error_code(std::string_view what, int code) const {
  return store_error(m_path, fmt::format("{}: {}", what, sqlite3_errstr(code)),
                     is_lock_error(code));
}

Error Database::error_message(std::string_view what) const {
  return store_error(m_path, std::string(what));
}

bool Database::in_transaction() const {
  return sqlite3_get_autocommit(m_db) == 0;
}

// SQLite's busy timeout retries a held write lock after pauses of 1, 2, 5, ... then 100 ms, so a
// writer that has waited a while tries ten times a second while newcomers try within a
// millisecond, and the lock, taken again microseconds after each release, goes to them: with
// hundreds of processes writing, early waiters starved past the 10 s ("database is locked")
// although the file was never stuck. Polling faster burns the cores the holder needs. So ralph's
// writers queue in the kernel first: an exclusive flock on `<file>-writers`, held from BEGIN
// IMMEDIATE to the end of the transaction. A sleeping waiter is woken when it is free, and
// SQLite's own lock then seldom waits (only for writers that are not ralph's: the sqlite3 shell).
// The kernel drops the flock of a killed process; a writer stopped mid-transaction (SIGSTOP)
// holds the others until it goes on or dies.
Result<void> Database::lock_writers() {
  while (::flock(m_writers_fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      return fail(
          error_message(fmt::format("lock {}-writers: {}", m_path.string(), std::strerror(errno))));
    }
  }
  return {};
}

void Database::unlock_writers() {
  ::flock(m_writers_fd, LOCK_UN);
}

Result<void> Database::set_sync(Sync sync) {
  if (sync == m_sync) {
    return {};
  }
  TRY_ASSIGN(Statement pragma,
             prepare(sync == Sync::disk ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL",
                     "set synchronous"));
  TRY(pragma.run());
  m_sync = sync;
  return {};
}

// ---- Transaction ----

Result<Transaction> Transaction::write(Database& db, Sync sync) {
  TRY(db.set_sync(sync));
  TRY(db.lock_writers());
  Transaction transaction(db);
  transaction.m_writers_locked = true; // from here every way out unlocks
  TRY_ASSIGN(Statement begin, db.prepare("BEGIN IMMEDIATE", "begin write transaction"));
  TRY(begin.run());
  return transaction;
}

Result<Transaction> Transaction::read(Database& db) {
  TRY_ASSIGN(Statement begin, db.prepare("BEGIN", "begin read transaction"));
  TRY(begin.run());
  return Transaction(db);
}

Transaction::Transaction(Transaction&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)),
      m_writers_locked(std::exchange(other.m_writers_locked, false)) {}

Transaction::~Transaction() {
  // SQLite may already have rolled back on its own (after an I/O error or a full disk); a
  // second ROLLBACK would only fail.
  if (m_db != nullptr && m_db->in_transaction()) {
    if (auto rollback = m_db->prepare("ROLLBACK", "roll back")) {
      (void)rollback->run();
    }
  }
  if (m_db != nullptr && m_writers_locked) {
    m_db->unlock_writers();
  }
}

Result<void> Transaction::commit() {
  TRY_ASSIGN(Statement commit, m_db->prepare("COMMIT", "commit"));
  TRY(commit.run()); // on failure the destructor rolls back what is left
  if (m_writers_locked) {
    m_db->unlock_writers();
  }
  m_db = nullptr;
  return {};
}

} // namespace ralph::store::sqlite
