// The store a batch's sessions share, summing what they spend for the batch's budgets.
#include "app/batch/batch_store.h"
#include "support/temp_dir.h"

#include "ralph/store/sqlite_session_store.h"

#include <gtest/gtest.h>

namespace ralph::app {
namespace {

TEST(BatchStore, SessionsSpendTogetherAndTheBudgetStopsTheBatchOnce) {
  testing::TempDir dir;
  auto opened = store::SqliteSessionStore::open(dir.path() / "ralph.db");
  ASSERT_TRUE(opened) << opened.error().message;
  CancelToken stop;
  BatchStore batch(**opened, BudgetSettings{.max_tokens = 1000}, stop);
  store::SessionRow a{.id = "a", .input_tokens = 300, .output_tokens = 100};
  store::SessionRow b{.id = "b", .input_tokens = 200};
  ASSERT_TRUE(batch.create_session(a));
  ASSERT_TRUE(batch.create_session(b));
  a.input_tokens = 500; // counters are the session's totals: counted once, not added up
  ASSERT_TRUE(batch.update_session(a));
  EXPECT_EQ(batch.spend().tokens, 800);
  EXPECT_FALSE(stop.cancelled());
  b.output_tokens = 200;
  ASSERT_TRUE(batch.update_session(b));
  EXPECT_EQ(batch.spend().tokens, 1000);
  EXPECT_TRUE(stop.cancelled());
  EXPECT_EQ(batch.spent(), BudgetKind::tokens);
  const auto found = batch.find_session("b");
  ASSERT_TRUE(found && *found);
  EXPECT_EQ((*found)->output_tokens, 200);
}

} // namespace
} // namespace ralph::app
