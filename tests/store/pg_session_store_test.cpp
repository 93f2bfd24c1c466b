// What only the PostgreSQL store has to get right (the shared contract is
// session_store_contract_test.cpp): writes run again after a connection fault are written once,
// and a server restart between writes is ridden out.
#include "store/pg_db.h"
#include "store/pg_schema.h"
#include "store/pg_tables.h"
#include "support/pg_cluster.h"

#include "ralph/store/pg_session_store.h"

#include <gtest/gtest.h>

namespace ralph::store {
namespace {

using testing::PgCluster;

SessionRow session_row(std::string id) {
  SessionRow row;
  row.id = std::move(id);
  row.created_at = "2026-01-01T00:00:00.000Z";
  row.updated_at = row.created_at;
  return row;
}

TEST(PgSessionStore, AStepWrittenAgainWithItsWriteKeyIsAddedOnce) {
  // What a rerun after a fault during COMMIT does: the same statements, the same key.
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  auto db = pg::Connection::open(cluster.fresh_database());
  ASSERT_TRUE(db) << db.error().message;
  ASSERT_TRUE(pg::migrate(**db, "sessions", pg::session_schema()));
  ASSERT_TRUE(pg::insert_session(**db, session_row("s-1")));
  auto again = pg::insert_session(**db, session_row("s-1"));
  ASSERT_TRUE(again);
  EXPECT_FALSE(*again) << "the second insert of a session writes nothing";
  ModelCallRow call;
  call.session_id = "s-1";
  ToolCallRow tool;
  tool.session_id = "s-1";
  for (int run = 0; run < 2; ++run) {
    ASSERT_TRUE(pg::insert_model_call(**db, call, 42));
    ASSERT_TRUE(pg::insert_tool_call(**db, tool, 43));
  }
  ASSERT_TRUE(pg::insert_model_call(**db, call, 44)); // another step: another key
  auto calls = pg::select_model_calls(**db, "s-1");
  ASSERT_TRUE(calls);
  EXPECT_EQ(calls->size(), 2u);
  auto tools = pg::select_tool_calls(**db, "s-1");
  ASSERT_TRUE(tools);
  EXPECT_EQ(tools->size(), 1u);
}

TEST(PgSessionStore, AServerRestartBetweenWritesIsRiddenOut) {
  PgCluster cluster;
  RALPH_REQUIRE_PG(cluster);
  auto store = PgSessionStore::open(cluster.fresh_database(), std::chrono::seconds(20));
  ASSERT_TRUE(store) << store.error().message;
  SessionRow session = session_row("s-1");
  ASSERT_TRUE((*store)->create_session(session));
  cluster.halt(); // the store's connection is cut
  cluster.resume();
  ModelCallRow call;
  call.session_id = "s-1";
  session.input_tokens = 7;
  auto added = (*store)->add_model_call(call, session);
  ASSERT_TRUE(added) << added.error().message;
  auto loaded = (*store)->load("s-1");
  ASSERT_TRUE(loaded && *loaded);
  EXPECT_EQ((*loaded)->model_calls.size(), 1u);
  EXPECT_EQ((*loaded)->session.input_tokens, 7);
}

TEST(PgSessionStore, AServerDownPastTheBoundIsAnErrorNamingItAndHowLongItWasRetried) {
  PgCluster cluster;
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  auto store = PgSessionStore::open(url, std::chrono::milliseconds(500));
  ASSERT_TRUE(store) << store.error().message;
  ASSERT_TRUE((*store)->create_session(session_row("s-1")));
  cluster.halt();
  auto found = (*store)->find_session("s-1");
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().kind, ErrorKind::store);
  EXPECT_EQ(found.error().message.rfind(url + ": find session: not connected (", 0), 0u)
      << found.error().message;
  EXPECT_NE(found.error().message.find("(retried for 0.5 s)"), std::string::npos)
      << found.error().message;
  cluster.resume();
  auto back = (*store)->find_session("s-1");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->has_value()) << "the store works again once the server is back";
}

} // namespace
} // namespace ralph::store
