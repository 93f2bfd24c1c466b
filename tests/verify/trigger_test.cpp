#include "ralph/verify/trigger.h"

#include <gtest/gtest.h>

namespace ralph::verify {
namespace {

constexpr std::string_view k_marker = "<promise>DONE</promise>";

TEST(Keywords, SingleWordsMatchWholeWordsOnlyInAnyCase) {
  EXPECT_TRUE(contains_keyword("All DONE here.", "done"));
  EXPECT_TRUE(contains_keyword("done", "done"));
  EXPECT_FALSE(contains_keyword("the task was abandoned", "done"));
  EXPECT_FALSE(contains_keyword("doneness", "done"));
  EXPECT_TRUE(contains_keyword("it's ready-made", "ready-made"));
  EXPECT_FALSE(contains_keyword("already", "ready"));
}

TEST(Keywords, PhrasesAndSpecialCharactersMatchLiterally) {
  EXPECT_TRUE(contains_keyword("OK, Here You Go: the file", "here you go"));
  EXPECT_TRUE(contains_keyword("written in C++20", "c++"));
  EXPECT_TRUE(contains_keyword("status [ok] (all)", "[ok]"));
  EXPECT_TRUE(contains_keyword("cost: $5.00", "$5.00"));
  EXPECT_FALSE(contains_keyword("cost: $5x00", "$5.00")) << "'.' is not a regex wildcard";
  EXPECT_FALSE(contains_keyword("anything", ""));
}

TEST(Trigger, Modes) {
  TriggerSettings options;
  EXPECT_TRUE(decide_trigger(options, k_marker, "anything", false).verify);

  options.mode = TriggerMode::keywords;
  options.keywords = {"finished", "c++"};
  EXPECT_FALSE(decide_trigger(options, k_marker, "still working", false).verify);
  const auto hit = decide_trigger(options, k_marker, "Finished the C++ port", false);
  EXPECT_TRUE(hit.verify);
  EXPECT_EQ(hit.reason, "keyword \"finished\"");

  options.mode = TriggerMode::marker;
  EXPECT_FALSE(decide_trigger(options, k_marker, "done", false).verify);
  EXPECT_TRUE(decide_trigger(options, k_marker, "done\n<promise>DONE</promise>", false).verify);

  options.mode = TriggerMode::heartbeat;
  EXPECT_FALSE(decide_trigger(options, k_marker, "HEARTBEAT_OK", false).verify);
  EXPECT_TRUE(decide_trigger(options, k_marker, "HEARTBEAT_OK", true).verify);
}

TEST(Trigger, HeartbeatRunsNeedVerifyHeartbeatOutsideHeartbeatMode) {
  TriggerSettings options;
  EXPECT_FALSE(decide_trigger(options, k_marker, "HEARTBEAT_OK", true).verify);
  options.verify_heartbeat = true;
  options.mode = TriggerMode::keywords;
  EXPECT_TRUE(decide_trigger(options, k_marker, "HEARTBEAT_OK", true).verify)
      << "heartbeat runs are verified whatever the keywords";
}

} // namespace
} // namespace ralph::verify
