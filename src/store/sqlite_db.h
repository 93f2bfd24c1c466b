#pragma once

#include "ralph/core/error.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

// The store's RAII wrapper over the SQLite C API; sqlite_db.cpp is the only file that includes
// sqlite3.h. Errors are `Error{kind store}` naming the database file and the operation.
struct sqlite3;
struct sqlite3_stmt;

namespace ralph::store::sqlite {

class Database;

// How far a commit reaches before it returns, in WAL mode.
// - `page_cache`: the transaction is in the WAL file, written but not fsynced. It survives the
//   process being killed (kill -9, a crash); a power cut or a kernel crash may lose it, and the
//   transactions after it, but never corrupts the file or tears a transaction
//   (PRAGMA synchronous=NORMAL).
// - `disk`: the WAL is fsynced before COMMIT returns, which makes this transaction and every one
//   committed before it (by any connection) survive a power cut (PRAGMA synchronous=FULL).
enum class Sync { page_cache, disk };

// A use of one of the connection's cached prepared statements. Parameters are bound in order
// (?1, ?2, ...) and copied, so temporaries are fine. When the handle dies the statement is reset
// and its bindings cleared, ready for the next use. Must not outlive its Database.
class Statement {
public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Bind the next parameter. A failure is remembered and reported by the next step().
  Statement& bind(std::string_view text);
  // Without it a C string would bind as a bool (a pointer converts to bool before string_view).
  Statement& bind(const char* text) { return bind(std::string_view(text)); }
  Statement& bind(std::int64_t value);
  Statement& bind(int value) { return bind(static_cast<std::int64_t>(value)); }
  Statement& bind(bool value) { return bind(static_cast<std::int64_t>(value ? 1 : 0)); }
  Statement& bind(double value);
  Statement& bind(const std::optional<int>& value); // NULL when empty

  // One step: true when a row is ready to read, false when the statement is done.
  Result<bool> step();
  // Steps to the end, for statements that return no rows.
  Result<void> run();

  // Columns of the current row, from 0. NULL reads as "" / 0 / nullopt.
  std::string text(int column) const;
  std::int64_t integer(int column) const;
  bool boolean(int column) const { return integer(column) != 0; }
  double real(int column) const;
  std::optional<int> optional_int(int column) const;

private:
  friend class Database;
  Statement(Database& db, sqlite3_stmt* stmt, std::string_view what);

  Database* m_db;
  sqlite3_stmt* m_stmt;
  std::string_view m_what; // the operation, for messages; always a literal
  int m_next = 1;
  int m_bind_error = 0; // first SQLite error code from a bind, 0 when none
};

// One connection. Opening sets the policy every ralph database runs with: WAL journal, foreign
// keys on, a queue for writers and a 10 s busy timeout, so several processes can share the file;
// each write transaction says how durable its commit must be (Sync). One thread at a time.
class Database {
public:
  // Opens or creates `path`, creating its parent folders.
  static Result<std::unique_ptr<Database>> open(const std::filesystem::path& path);
  ~Database(); // finalizes the cached statements and closes the connection
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // The prepared statement for `sql`, compiled on first use and cached for the connection's
  // life. `what` names the operation in error messages and must be a literal.
  Result<Statement> prepare(std::string_view sql, std::string_view what);
  // Runs SQL without parameters (several statements allowed), uncached: DDL and migrations.
  Result<void> exec(const std::string& sql, std::string_view what);
  // Rows changed by the last INSERT, UPDATE or DELETE.
  std::int64_t changes() const;
  // Whether a transaction is open (SQLite ends one by itself after some errors).
  bool in_transaction() const;
  // Sets how far the next commits reach; outside a transaction only (SQLite refuses inside).
  Result<void> set_sync(Sync sync);

  const std::filesystem::path& path() const { return m_path; }
  // "<path>: <what>: <SQLite's message for the last failure>"; retryable when it was a lock.
  Error error(std::string_view what) const;
  // "<path>: <what>" for failures the caller detects itself.
  Error error_message(std::string_view what) const;

private:
  struct StatementCache;
  Database(sqlite3* db, std::filesystem::path path, int writers_fd);
  Error error_code(std::string_view what, int code) const;
  // The queue ralph's writers wait in before SQLite's write lock (see sqlite_db.cpp).
  Result<void> lock_writers();
  void unlock_writers();
  friend class Statement;
  friend class Transaction;

  sqlite3* m_db;
  std::filesystem::path m_path;
  std::unique_ptr<StatementCache> m_cache;
  int m_writers_fd;
  Sync m_sync = Sync::disk; // what the connection's PRAGMA synchronous says now
};

// BEGIN ... COMMIT. Rolls back when it dies uncommitted (an early error return).
class Transaction {
public:
  // BEGIN IMMEDIATE: takes the write lock up front (waiting for other writers within the busy
  // timeout), so a transaction never fails on upgrading a read lock. `sync` says how far its
  // commit reaches before commit() returns.
  static Result<Transaction> write(Database& db, Sync sync);
  // BEGIN: one consistent snapshot for several reads; never blocks writers in WAL mode.
  static Result<Transaction> read(Database& db);
  Transaction(Transaction&& other) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  Result<void> commit();

private:
  explicit Transaction(Database& db) : m_db(&db) {}
  Database* m_db;                // null once committed, rolled back or moved from
  bool m_writers_locked = false; // a write transaction holds the writers' queue
};

} // namespace ralph::store::sqlite
