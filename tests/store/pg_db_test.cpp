#include "store/pg_db.h"
#include "support/pg_cluster.h"

#include "ralph/core/try.h"
#include "ralph/core/url.h"
#include "ralph/store/open_session_store.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace ralph::store::pg {
namespace {

using testing::PgCluster;

TEST(PgUrl, ThePasswordIsNeverShown) {
  EXPECT_EQ(url_without_password("postgresql://ralph:s3cret@db.example:5432/ralph"),
            "postgresql://ralph:***@db.example:5432/ralph");
  EXPECT_EQ(url_without_password("postgres://ralph@db/x?sslmode=require&password=s3cret"),
            "postgres://ralph@db/x?sslmode=require&password=***");
  EXPECT_EQ(url_without_password("postgresql://db.example/ralph"), "postgresql://db.example/ralph");
  EXPECT_TRUE(is_server_url("postgresql://x/y"));
  EXPECT_TRUE(is_server_url("postgres://x/y"));
  EXPECT_FALSE(is_server_url(".ralph/ralph.db"));
}

TEST(PgConnection, ParametersAndRowsRoundTripEveryType) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  auto db = Connection::open(cluster.url());
  ASSERT_TRUE(db) << db.error().message;
  auto rows = (*db)->query(
      "SELECT $1::text, $2::bigint, $3::boolean, $4::double precision, $5::integer, $6::text",
      Params()
          .add("it's \"quoted\"\n")
          .add(std::int64_t{1} << 40)
          .add(true)
          .add(0.1)
          .add(std::optional<int>{})
          .add(std::string_view("")),
      "echo");
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 1);
  EXPECT_EQ(rows->text(0, 0), "it's \"quoted\"\n");
  EXPECT_EQ(rows->integer(0, 1), std::int64_t{1} << 40);
  EXPECT_TRUE(rows->boolean(0, 2));
  EXPECT_DOUBLE_EQ(rows->real(0, 3), 0.1);
  EXPECT_EQ(rows->optional_int(0, 4), std::nullopt);
  EXPECT_FALSE(rows->is_null(0, 5));
}

TEST(PgConnection, AnSqlErrorNamesTheServerAndOperationAndIsNotRetried) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  auto db = Connection::open(cluster.url());
  ASSERT_TRUE(db) << db.error().message;
  const auto started = std::chrono::steady_clock::now();
  auto done = (*db)->transaction("read the widgets", [](Connection& c) -> Result<void> {
    TRY(c.query("SELECT * FROM no_such_table", "read the widgets"));
    return {};
  });
  ASSERT_FALSE(done);
  EXPECT_EQ(done.error().kind, ErrorKind::store);
  EXPECT_NE(done.error().message.find(cluster.url()), std::string::npos) << done.error().message;
  EXPECT_NE(done.error().message.find("read the widgets: ERROR:  relation \"no_such_table\""),
            std::string::npos)
      << done.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  // The failed transaction was rolled back: the connection works on.
  EXPECT_TRUE((*db)->query("SELECT 1", "after"));
}

TEST(PgConnection, ANameThatDoesNotExistFailsAtOnce) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const auto started = std::chrono::steady_clock::now();
  auto db = Connection::open(cluster.url("no_such_database"));
  ASSERT_FALSE(db);
  EXPECT_NE(db.error().message.find("does not exist"), std::string::npos) << db.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST(PgConnection, ARefusedConnectionIsRetriedForTheBoundedTimeThenNamed) {
  // A port nobody listens on: the private server, halted.
  PgCluster cluster;
  RALPH_REQUIRE_PG(cluster);
  cluster.halt();
  RetryPolicy retry;
  retry.give_up_after = std::chrono::milliseconds(600);
  const auto started = std::chrono::steady_clock::now();
  auto db = Connection::open(cluster.url(), retry);
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(db);
  EXPECT_NE(db.error().message.find("(retried for 0.6 s)"), std::string::npos)
      << db.error().message;
  EXPECT_GE(took, std::chrono::milliseconds(300)); // it did wait and try again
  EXPECT_FALSE(db.error().retryable);
}

TEST(PgConnection, ATransactionCutOffByAServerRestartRunsAgainOnANewConnection) {
  PgCluster cluster;
  RALPH_REQUIRE_PG(cluster);
  auto db = Connection::open(cluster.url());
  ASSERT_TRUE(db) << db.error().message;
  ASSERT_TRUE((*db)->exec("CREATE TABLE counts (n integer)", "create"));
  int runs = 0;
  auto done = (*db)->transaction("count", [&](Connection& c) -> Result<void> {
    if (++runs == 1) {
      cluster.halt(); // the server goes away in the middle of the transaction
      cluster.resume();
    }
    TRY(c.query("INSERT INTO counts VALUES (1)", "count"));
    return {};
  });
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(runs, 2);
  auto rows = (*db)->query("SELECT count(*) FROM counts", "read");
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(rows->integer(0, 0), 1);
}

TEST(PgConnection, AnUnflushedTransactionCommitsWithoutWaitingForTheServersDisk) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  auto db = Connection::open(cluster.url());
  ASSERT_TRUE(db) << db.error().message;
  const auto setting = [&](Commit commit) {
    auto shown = (*db)->transaction(
        "show", [](Connection& c) { return c.query("SHOW synchronous_commit", "show"); }, commit);
    EXPECT_TRUE(shown) << shown.error().message;
    return shown ? shown->text(0, 0) : std::string();
  };
  EXPECT_EQ(setting(Commit::unflushed), "off");
  // Only that transaction's: the next one waits again.
  EXPECT_EQ(setting(Commit::flushed), "on");
}

TEST(PgMigrate, ProcessesMigratingANewDatabaseAtOnceApplyEachStepOnce) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  const std::vector<std::string_view> steps{
      "CREATE TABLE widgets (id integer PRIMARY KEY)",
      "ALTER TABLE widgets ADD COLUMN name text; INSERT INTO widgets VALUES (1, 'one')"};
  std::vector<std::thread> threads;
  std::vector<std::string> errors(6);
  for (std::size_t i = 0; i < errors.size(); ++i) {
    threads.emplace_back([&, i] {
      auto db = Connection::open(url);
      auto done = db ? migrate(**db, "widgets", steps) : Result<void>(tl::unexpected(db.error()));
      if (!done) {
        errors[i] = done.error().message;
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  for (const auto& e : errors) {
    EXPECT_EQ(e, "");
  }
  auto db = Connection::open(url);
  ASSERT_TRUE(db);
  auto rows = (*db)->query("SELECT count(*) FROM widgets", "read");
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(rows->integer(0, 0), 1); // the second step ran once
  // A build that knows fewer steps refuses the newer database.
  auto older = migrate(**db, "widgets", std::span(steps).first(1));
  ASSERT_FALSE(older);
  EXPECT_NE(older.error().message.find("version 2, newer than this ralph knows (1)"),
            std::string::npos)
      << older.error().message;
}

} // namespace
} // namespace ralph::store::pg
