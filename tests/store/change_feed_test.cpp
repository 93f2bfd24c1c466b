// ChangeFeed: what other connections write reaches a waiting reader, without it reading the store
// in a loop. PostgreSQL (LISTEN on what the writes NOTIFY) on the shared test server, or a private
// one for restarts; SQLite (inotify) on a temporary file. Waits are bounded by generous timeouts
// that a passing test never reaches.
#include "store/pg_db.h"
#include "support/pg_cluster.h"
#include "support/temp_dir.h"

#include "ralph/store/change_feed.h"
#include "ralph/store/goal_queue.h"
#include "ralph/store/pg_session_store.h"
#include "ralph/store/sqlite_session_store.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ralph::store {
namespace {

using testing::PgCluster;
using namespace std::chrono_literals;
using Kind = StoreChange::Kind;

constexpr auto k_long = 20s; // an upper bound only: a wait that gets what it waits for ends first

StoreChange session(std::string id) {
  return StoreChange{.kind = Kind::session, .id = std::move(id)};
}
StoreChange batch(std::string id) {
  return StoreChange{.kind = Kind::batch, .id = std::move(id)};
}
const StoreChange k_workers{.kind = Kind::workers, .id = {}};
const StoreChange k_resync{.kind = Kind::resync, .id = {}};

SessionRow session_row(std::string id) {
  SessionRow row;
  row.id = std::move(id);
  row.created_at = "2026-01-01T00:00:00.000Z";
  row.updated_at = row.created_at;
  return row;
}

std::unique_ptr<ChangeFeed> open_feed(const std::string& location) {
  auto feed = ChangeFeed::open(location, 10s);
  if (!feed) {
    ADD_FAILURE() << feed.error().message;
    return nullptr;
  }
  return std::move(*feed);
}

// Waits until `wanted` have all come (or k_long passes), checking that every wait() returned
// each change once; what came.
std::set<StoreChange> collect(ChangeFeed& feed, const std::set<StoreChange>& wanted) {
  std::set<StoreChange> got;
  const auto deadline = std::chrono::steady_clock::now() + k_long;
  while (!std::includes(got.begin(), got.end(), wanted.begin(), wanted.end()) &&
         std::chrono::steady_clock::now() < deadline) {
    auto changes = feed.wait(k_long);
    if (!changes) {
      ADD_FAILURE() << changes.error().message;
      break;
    }
    const std::set<StoreChange> once(changes->begin(), changes->end());
    EXPECT_EQ(once.size(), changes->size()) << "a wait returns each change once";
    got.insert(once.begin(), once.end());
  }
  return got;
}

// The backend of the feed's connection, for pg_terminate_backend.
void kill_listener(const std::string& url) {
  auto db = pg::Connection::open(url);
  ASSERT_TRUE(db) << db.error().message;
  auto killed = (*db)->query("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                             "WHERE datname = current_database() AND query LIKE 'LISTEN %'",
                             "kill the listener");
  ASSERT_TRUE(killed) << killed.error().message;
  ASSERT_EQ(killed->integer(0, 0), 1);
}

TEST(PgChangeFeed, ASessionWrittenOnAnotherConnectionWakesTheWaitWithThatSession) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  auto store = PgSessionStore::open(url, 10s);
  ASSERT_TRUE(store) << store.error().message;
  auto feed = open_feed(url);
  ASSERT_TRUE(feed);

  ASSERT_TRUE((*store)->create_session(session_row("s-1")));
  auto changes = feed->wait(k_long);
  ASSERT_TRUE(changes) << changes.error().message;
  EXPECT_EQ(*changes, std::vector<StoreChange>{session("s-1")});

  // A step (unflushed commit) and a tool call announce it too.
  SessionRow row = session_row("s-1");
  row.input_tokens = 5;
  ASSERT_TRUE((*store)->add_model_call(ModelCallRow{.session_id = "s-1"}, row));
  EXPECT_EQ(collect(*feed, {session("s-1")}), std::set<StoreChange>{session("s-1")});
  ASSERT_TRUE((*store)->add_tool_call(ToolCallRow{.session_id = "s-1"}));
  EXPECT_EQ(collect(*feed, {session("s-1")}), std::set<StoreChange>{session("s-1")});
  ASSERT_TRUE((*store)->remove_session("s-1"));
  EXPECT_EQ(collect(*feed, {session("s-1")}), std::set<StoreChange>{session("s-1")});
}

TEST(PgChangeFeed, AWriteRolledBackIsNeverAnnounced) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  auto store = PgSessionStore::open(url, 10s);
  ASSERT_TRUE(store) << store.error().message;
  auto feed = open_feed(url);
  ASSERT_TRUE(feed);
  // Updating a session that does not exist fails inside its transaction.
  ASSERT_FALSE((*store)->update_session(session_row("s-none")));
  ASSERT_TRUE((*store)->create_session(session_row("s-1")));
  // Notifications come in commit order: once s-1's has come, a rolled back one would have too.
  EXPECT_EQ(collect(*feed, {session("s-1")}), std::set<StoreChange>{session("s-1")});
}

TEST(PgChangeFeed, ManyWritesAreCoalescedIntoEachChangeOnce) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  auto store = PgSessionStore::open(url, 10s);
  ASSERT_TRUE(store) << store.error().message;
  auto feed = open_feed(url);
  ASSERT_TRUE(feed);
  ASSERT_TRUE((*store)->create_session(session_row("s-1")));
  ASSERT_TRUE((*store)->create_session(session_row("s-2")));
  constexpr int k_writes = 30;
  for (int i = 0; i < k_writes; ++i) {
    ASSERT_TRUE((*store)->add_tool_call(ToolCallRow{.session_id = i % 2 == 0 ? "s-1" : "s-2"}));
  }
  ASSERT_TRUE((*store)->create_session(session_row("s-last")));
  int waits = 0;
  int seen = 0;
  std::set<StoreChange> got;
  const auto deadline = std::chrono::steady_clock::now() + k_long;
  while (got.count(session("s-last")) == 0 && std::chrono::steady_clock::now() < deadline) {
    auto changes = feed->wait(k_long);
    ASSERT_TRUE(changes) << changes.error().message;
    ++waits;
    seen += static_cast<int>(changes->size());
    EXPECT_TRUE(std::is_sorted(changes->begin(), changes->end()));
    EXPECT_EQ(std::set<StoreChange>(changes->begin(), changes->end()).size(), changes->size())
        << "each change once in a wait";
    got.insert(changes->begin(), changes->end());
  }
  EXPECT_EQ(got, (std::set<StoreChange>{session("s-1"), session("s-2"), session("s-last")}));
  EXPECT_LE(seen, 3 * waits);
  EXPECT_LT(seen, k_writes) << "33 writes, " << waits << " waits";
}

TEST(PgChangeFeed, AQueueWriteAnnouncesItsBatchAndTheWorkers) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  auto queue = GoalQueue::open(url, 10s);
  ASSERT_TRUE(queue) << queue.error().message;
  auto feed = open_feed(url);
  ASSERT_TRUE(feed);

  ASSERT_TRUE((*queue)->enqueue("b1", "{}", {GoalSpec{.id = "g1", .spec_json = "{}"}}));
  EXPECT_EQ(collect(*feed, {batch("b1")}), std::set<StoreChange>{batch("b1")});
  auto claimed = (*queue)->claim("w1", 1, 60s);
  ASSERT_TRUE(claimed && claimed->size() == 1u);
  EXPECT_EQ(collect(*feed, {batch("b1"), k_workers}),
            (std::set<StoreChange>{batch("b1"), k_workers}));
  auto lost = (*queue)->renew("w1", {claim_of((*claimed)[0])}, 60s);
  ASSERT_TRUE(lost && lost->empty());
  EXPECT_EQ(collect(*feed, {k_workers}), std::set<StoreChange>{k_workers}) << "a heartbeat";
  ASSERT_TRUE(*(*queue)->finish("w1", claim_of((*claimed)[0]),
                                GoalOutcome{.completed = true, .result_json = "{}"}));
  EXPECT_EQ(collect(*feed, {batch("b1"), k_workers}),
            (std::set<StoreChange>{batch("b1"), k_workers}));
}

TEST(PgChangeFeed, WakeFromAnotherThreadEndsTheWaitAtOnce) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  auto feed = open_feed(cluster.fresh_database());
  ASSERT_TRUE(feed);
  const auto start = std::chrono::steady_clock::now();
  std::thread waker([&] { feed->wake(); });
  auto changes = feed->wait(30s);
  waker.join();
  ASSERT_TRUE(changes) << changes.error().message;
  EXPECT_TRUE(changes->empty());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 15s);
  // Without a write or a wake, a wait lasts its timeout and returns nothing.
  auto none = feed->wait(50ms);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(PgChangeFeed, AKilledConnectionIsRemadeAndReportedAsResync) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  auto store = PgSessionStore::open(url, 10s);
  ASSERT_TRUE(store) << store.error().message;
  auto feed = open_feed(url);
  ASSERT_TRUE(feed);
  kill_listener(url);
  EXPECT_EQ(collect(*feed, {k_resync}), std::set<StoreChange>{k_resync});
  // Listening again: the next write is heard.
  ASSERT_TRUE((*store)->create_session(session_row("s-1")));
  EXPECT_EQ(collect(*feed, {session("s-1")}), std::set<StoreChange>{session("s-1")});
}

TEST(PgChangeFeed, AServerRestartIsResyncAndAServerDownPastTheBoundAnError) {
  PgCluster cluster;
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  auto feed = ChangeFeed::open(url, 500ms);
  ASSERT_TRUE(feed) << feed.error().message;
  cluster.halt();
  cluster.resume();
  EXPECT_EQ(collect(**feed, {k_resync}), std::set<StoreChange>{k_resync});

  cluster.halt();
  auto down = (*feed)->wait(k_long);
  ASSERT_FALSE(down);
  EXPECT_EQ(down.error().kind, ErrorKind::store);
  EXPECT_EQ(down.error().message.rfind(url + ":", 0), 0u) << down.error().message;
  EXPECT_NE(down.error().message.find("(retried for 0.5 s)"), std::string::npos)
      << down.error().message;
  cluster.resume();
  EXPECT_EQ(collect(**feed, {k_resync}), std::set<StoreChange>{k_resync});
  auto store = PgSessionStore::open(url, 10s);
  ASSERT_TRUE(store) << store.error().message;
  ASSERT_TRUE((*store)->create_session(session_row("s-1")));
  EXPECT_EQ(collect(**feed, {session("s-1")}), std::set<StoreChange>{session("s-1")});
}

TEST(SqliteChangeFeed, AWriteByAnotherStoreWakesTheWaitWithThatSession) {
  const ralph::testing::TempDir dir;
  const std::string path = (dir.path() / "ralph.db").string();
  auto writer = SqliteSessionStore::open(path);
  ASSERT_TRUE(writer) << writer.error().message;
  ASSERT_TRUE((*writer)->create_session(session_row("s-old")));
  auto feed = open_feed(path);
  ASSERT_TRUE(feed);

  ASSERT_TRUE((*writer)->create_session(session_row("s-1")));
  EXPECT_EQ(collect(*feed, {session("s-1")}), std::set<StoreChange>{session("s-1")})
      << "only the session written";

  SessionRow row = session_row("s-1");
  row.updated_at = "2026-01-01T00:00:01.000Z";
  row.input_tokens = 3;
  ASSERT_TRUE((*writer)->add_model_call(ModelCallRow{.session_id = "s-1"}, row));
  EXPECT_EQ(collect(*feed, {session("s-1")}), std::set<StoreChange>{session("s-1")});

  // Another store on the file, as another process's would be.
  auto other = SqliteSessionStore::open(path);
  ASSERT_TRUE(other) << other.error().message;
  ASSERT_TRUE((*other)->remove_session("s-old"));
  EXPECT_EQ(collect(*feed, {session("s-old")}), std::set<StoreChange>{session("s-old")});
}

TEST(SqliteChangeFeed, AWriteByAnotherProcessWakesTheWait) {
  const ralph::testing::TempDir dir;
  const std::string path = (dir.path() / "ralph.db").string();
  auto feed = open_feed(path);
  ASSERT_TRUE(feed);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // What a `ralph run` in a terminal does to the file: its own connection, its own process.
    auto store = SqliteSessionStore::open(path);
    std::_Exit(store && (*store)->create_session(session_row("s-other")) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(collect(*feed, {session("s-other")}), std::set<StoreChange>{session("s-other")});
}

TEST(SqliteChangeFeed, WakeEndsTheWaitAndNoWriteMeansNoChange) {
  const ralph::testing::TempDir dir;
  auto feed = open_feed((dir.path() / "ralph.db").string());
  ASSERT_TRUE(feed);
  auto none = feed->wait(50ms);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->empty());
  const auto start = std::chrono::steady_clock::now();
  std::thread waker([&] { feed->wake(); });
  auto woken = feed->wait(30s);
  waker.join();
  ASSERT_TRUE(woken);
  EXPECT_TRUE(woken->empty());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 15s);
}

} // namespace
} // namespace ralph::store
