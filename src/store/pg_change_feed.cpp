#include "store/change_feeds.h"
#include "store/pg_db.h"
#include "store/waker.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <algorithm>

namespace ralph::store {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// LISTEN on a connection of its own; the store's writes NOTIFY with their COMMIT.
class PgChangeFeed final : public ChangeFeed {
public:
  PgChangeFeed(std::unique_ptr<pg::Connection> db, Waker waker)
      : m_db(std::move(db)), m_waker(std::move(waker)) {}

  Result<std::vector<StoreChange>> wait(milliseconds timeout) override;
  void wake() override { m_waker.wake(); }

private:
  // One try to get the connection back and listening: true when it is. An error once the store
  // has been unreachable for the policy's time; the next wait() then tries for as long again.
  Result<bool> reconnect();
  // How long to wait before the next try: doubling, up to the policy's longest pause.
  milliseconds next_pause() {
    const pg::RetryPolicy& retry = m_db->retry();
    return std::min(retry.max_pause, retry.first_pause * (1 << std::min(m_tries++, 16)));
  }

  std::unique_ptr<pg::Connection> m_db;
  Waker m_waker;
  bool m_broken = false;
  Clock::time_point m_broken_since;
  int m_tries = 0;
};

Result<bool> PgChangeFeed::reconnect() {
  auto back = m_db->reconnect();
  if (back) {
    back = m_db->listen();
  }
  if (back) {
    m_broken = false;
    return true;
  }
  const pg::RetryPolicy& retry = m_db->retry();
  const auto now = Clock::now();
  if (!back.error().retryable || now - m_broken_since >= retry.give_up_after) {
    m_broken_since = now;
    m_tries = 0;
    Error error = back.error();
    error.message += fmt::format(" (retried for {:.1f} s)",
                                 static_cast<double>(retry.give_up_after.count()) / 1000.0);
    error.retryable = false;
    return tl::unexpected(std::move(error));
  }
  return false;
}

Result<std::vector<StoreChange>> PgChangeFeed::wait(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::set<StoreChange> changes;
  for (;;) {
    if (m_broken) {
      TRY_ASSIGN(const bool back, reconnect());
      if (!back) {
        const auto pause = std::min(
            next_pause(), std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
        if (pause.count() <= 0 || m_waker.wait(-1, pause) == Waker::Outcome::woken) {
          return to_vector(changes);
        }
        continue;
      }
      changes.insert(StoreChange{.kind = StoreChange::Kind::resync, .id = {}});
    }
    auto received = m_db->received();
    if (!received) {
      // Whatever was announced until the connection is back is lost: resync then.
      m_broken = true;
      m_broken_since = Clock::now();
      m_tries = 0;
      continue;
    }
    for (const std::string& payload : *received) {
      if (auto change = parse_change(payload)) {
        changes.insert(std::move(*change));
      }
    }
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (!changes.empty() || left.count() <= 0) {
      return to_vector(changes);
    }
    if (m_waker.wait(m_db->socket(), left) != Waker::Outcome::readable) {
      return to_vector(changes);
    }
  }
}

} // namespace

Result<std::unique_ptr<ChangeFeed>> open_pg_change_feed(const std::string& url,
                                                        milliseconds retry_for) {
  pg::RetryPolicy retry;
  retry.give_up_after = retry_for;
  TRY_ASSIGN(auto db, pg::Connection::open(url, retry));
  TRY(db->listen());
  TRY_ASSIGN(Waker waker, Waker::make());
  return std::unique_ptr<ChangeFeed>(
      std::make_unique<PgChangeFeed>(std::move(db), std::move(waker)));
}

} // namespace ralph::store
