#pragma once

#include "ralph/core/error.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

// The store's RAII wrapper over libpq; pg_db.cpp is the only file that includes libpq-fe.h.
// Errors are `Error{kind store}` naming the server (URL without its password) and the operation;
// connection faults are `retryable`.
struct pg_conn;
struct pg_result;

namespace ralph::store::pg {

// The channel every write of the session store and the goal queue is announced on when it
// commits (Connection::notify), and that a ChangeFeed listens on. Payloads: `session:<id>`,
// `batch:<name>`, `workers`.
inline constexpr std::string_view k_changes_channel = "ralph_changes";

// How long connection faults (a server restart, a network drop) are retried before the
// operation fails: the first retry after `first_pause`, each pause doubling up to `max_pause`.
struct RetryPolicy {
  std::chrono::milliseconds give_up_after{std::chrono::seconds(30)};
  std::chrono::milliseconds first_pause{50};
  std::chrono::milliseconds max_pause{std::chrono::seconds(2)};
};

// How far a transaction's COMMIT reaches before it returns (Connection::transaction).
enum class Commit { flushed, unflushed };

// Parameters of one statement, $1, $2, ... in order, sent as text (NULL when empty).
class Params {
public:
  Params& add(std::string_view text);
  // Without it a C string would bind as a bool (a pointer converts to bool first).
  Params& add(const char* text) { return add(std::string_view(text)); }
  Params& add(std::int64_t value);
  Params& add(int value) { return add(static_cast<std::int64_t>(value)); }
  Params& add(bool value);
  Params& add(double value);
  Params& add(const std::optional<int>& value);
  Params& add_null();

  std::size_t size() const { return m_values.size(); }

private:
  friend class Connection;
  std::vector<std::optional<std::string>> m_values;
};

// The rows a statement returned. Columns from 0; NULL reads as "" / 0 / nullopt.
class Rows {
public:
  explicit Rows(pg_result* result);
  Rows(Rows&& other) noexcept;
  Rows& operator=(Rows&& other) noexcept;
  Rows(const Rows&) = delete;
  Rows& operator=(const Rows&) = delete;
  ~Rows();

  int size() const;
  bool empty() const { return size() == 0; }
  // Rows an INSERT, UPDATE or DELETE touched.
  std::int64_t affected() const;

  bool is_null(int row, int column) const;
  std::string text(int row, int column) const;
  std::int64_t integer(int row, int column) const;
  double real(int row, int column) const;
  bool boolean(int row, int column) const; // PostgreSQL's `t` / `f`
  std::optional<int> optional_int(int row, int column) const;

private:
  pg_result* m_result;
};

// One connection to a server, remade after a connection fault. Statements are prepared once
// per connection and reused. One thread at a time.
class Connection {
public:
  // Connects to `url`, retrying refused connections within the policy.
  static Result<std::unique_ptr<Connection>> open(std::string url, RetryPolicy retry = {});
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // One statement with parameters. `what` names the operation in messages; a literal.
  Result<Rows> query(std::string_view sql, const Params& params, std::string_view what);
  Result<Rows> query(std::string_view sql, std::string_view what) {
    return query(sql, Params{}, what);
  }
  // Several statements without parameters, unprepared: DDL and migrations.
  Result<void> exec(const std::string& sql, std::string_view what);

  // Runs `work(*this)` between BEGIN and COMMIT and returns what it returns. When a connection
  // fault (or a serialization failure or deadlock) interrupts it, the connection is remade and
  // `work` runs again from the start, within the retry policy. A fault during COMMIT leaves
  // unknown whether the first run committed, so what `work` writes must be safe to write twice
  // (keyed upserts, inserts that ignore a row already there).
  //
  // `commit` says whether COMMIT waits for the server's WAL flush (`flushed`), or returns once
  // committed (`unflushed`: synchronous_commit off; the next flushed commit, or the server within
  // a fraction of a second, flushes it). Both survive the client's death; a crash of the server
  // may lose the last unflushed ones, never tear one.
  template <typename Work>
  auto transaction(std::string_view what, Work&& work, Commit commit = Commit::flushed)
      -> decltype(work(*this)) {
    const auto deadline = std::chrono::steady_clock::now() + m_retry.give_up_after;
    for (int tries = 0;; ++tries) {
      auto done = attempt_transaction(what, work, commit);
      if (done || !done.error().retryable || !pause_before_retry(tries, deadline, done.error())) {
        return done;
      }
    }
  }

  // Announces `payload` on k_changes_channel once the transaction `work` runs in commits: sent
  // with the COMMIT, in its round trip (commit_notifying says how), so listeners hear of a write
  // once it is visible and never of one rolled back. The same payload is sent once per
  // transaction; a run of `work` again after a fault starts with none.
  void notify(std::string payload);

  // A listening connection (ChangeFeed): LISTEN on k_changes_channel (again after each
  // reconnect(), which forgets it), the socket to poll() for the server's messages, and the
  // payloads that have arrived, read without blocking. A broken connection is a retryable error.
  Result<void> listen();
  int socket() const;
  Result<std::vector<std::string>> received();
  // One attempt to remake the connection (for a caller that paces its own retries).
  Result<void> reconnect() { return connect(); }

  const std::string& shown_url() const { return m_shown; }
  const RetryPolicy& retry() const { return m_retry; }
  // "<shown url>: <what>: <message>".
  Error error(std::string_view what, std::string_view message, bool retryable = false) const;

private:
  Connection(std::string url, RetryPolicy retry);
  Result<void> connect();
  // Whether to try again: pauses and remakes the connection when the deadline allows; false
  // (with `last` made final, its message saying how long it was retried) when it does not.
  bool pause_before_retry(int tries, std::chrono::steady_clock::time_point deadline, Error& last);
  Result<Rows> checked(pg_result* result, std::string_view what);
  // "not connected", with why the last attempt to connect failed.
  std::string not_connected() const;

  // BEGIN, and for an unflushed commit its setting in the same round trip.
  Result<void> begin(std::string_view what, Commit commit);

  template <typename Work>
  auto attempt_transaction(std::string_view what, Work& work, Commit commit)
      -> decltype(work(*this)) {
    if (auto begun = begin(what, commit); !begun) {
      return tl::unexpected(begun.error());
    }
    auto done = work(*this);
    if (!done) {
      (void)query("ROLLBACK", what);
      return done;
    }
    if (auto committed = commit_notifying(what); !committed) {
      return tl::unexpected(committed.error());
    }
    return done;
  }
  // COMMIT, with the transaction's notifications (notify()) in the same message.
  Result<void> commit_notifying(std::string_view what);

  std::string m_url;
  std::string m_shown;
  RetryPolicy m_retry;
  pg_conn* m_conn = nullptr;
  std::unordered_map<std::string, std::string> m_prepared; // SQL text -> statement name
  std::string m_connect_failure;     // why the last reconnect failed, for "not connected" errors
  std::vector<std::string> m_notify; // payloads the open transaction announces on commit
  bool m_unflushed = false;          // the open transaction's Commit
};

// Brings the schema of `track` (one set of tables, such as "sessions") to the last of `steps`
// (version i + 1 is steps[i]), applying the missing steps in one transaction under an advisory
// lock, so processes starting on a new database at once migrate it exactly once. Versions are
// kept in the table `ralph_schema`. Fails on a database newer than the list.
Result<void> migrate(Connection& db, std::string_view track,
                     std::span<const std::string_view> steps);

} // namespace ralph::store::pg
