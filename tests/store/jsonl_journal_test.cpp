// The append-only file of JSON lines a batch journals its goals in.
#include "support/temp_dir.h"

#include "ralph/store/jsonl_journal.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::store {
namespace {

TEST(JsonlJournal, ATornLastLineIsCutOffSoTheNextAppendStartsClean) {
  testing::TempDir dir;
  dir.write("state.jsonl", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"c\",\"sess");
  auto journal = JsonlJournal::open(dir.path() / "state.jsonl");
  ASSERT_TRUE(journal) << journal.error().message;
  ASSERT_EQ((*journal)->existing().size(), 2u);
  EXPECT_EQ((*journal)->existing()[1]["id"], "b");
  ASSERT_TRUE((*journal)->append({{"id", "d"}}));
  EXPECT_EQ(dir.read("state.jsonl"), "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"d\"}\n");
}

TEST(JsonlJournal, ALineNestedTooDeepToPrintOrCopyIsSkipped) {
  // nlohmann's printer and copies recurse once per level: kept, such a line would overflow the
  // stack wherever the batch later used it.
  testing::TempDir dir;
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  dir.write("state.jsonl", "{\"id\":\"a\",\"x\":" + deep + "}\n{\"id\":\"b\"}\n");
  auto journal = JsonlJournal::open(dir.path() / "state.jsonl");
  ASSERT_TRUE(journal) << journal.error().message;
  ASSERT_EQ((*journal)->existing().size(), 1u);
  EXPECT_EQ((*journal)->existing()[0]["id"], "b");
}

} // namespace
} // namespace ralph::store
