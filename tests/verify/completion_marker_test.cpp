#include "ralph/verify/completion_marker.h"

#include <gtest/gtest.h>

namespace ralph::verify {
namespace {

constexpr std::string_view k_marker = "<promise>DONE</promise>";

TEST(CompletionMarker, AloneOnTheLastLineIsAClaimAndIsStripped) {
  const auto scan =
      scan_completion_marker("All tests pass.\n\n<promise>DONE</promise>\n", k_marker);
  EXPECT_TRUE(scan.claimed);
  EXPECT_EQ(scan.visible, "All tests pass.");
}

TEST(CompletionMarker, CaseAndWhitespaceDoNotMatter) {
  EXPECT_TRUE(scan_completion_marker("ok\n  < Promise >done</ PROMISE >  ", k_marker).claimed);
  EXPECT_EQ(scan_completion_marker("ok\n<PROMISE> Done </promise>", k_marker).visible, "ok");
}

TEST(CompletionMarker, InsideASentenceIsNotAClaimButIsStillHidden) {
  const auto scan = scan_completion_marker(
      "I was told to end with <promise>DONE</promise> once the tests pass.", k_marker);
  EXPECT_FALSE(scan.claimed);
  EXPECT_EQ(scan.visible, "I was told to end with  once the tests pass.");
}

TEST(CompletionMarker, EchoOfTheInstructionsIsNotAClaim) {
  const std::string echo = "My instructions say:" + completion_instructions(k_marker);
  EXPECT_FALSE(scan_completion_marker(echo, k_marker).claimed);
}

TEST(CompletionMarker, MarkerBeforeTheLastLineIsNotAClaim) {
  EXPECT_FALSE(
      scan_completion_marker("<promise>DONE</promise>\nbut one more thing", k_marker).claimed);
}

TEST(CompletionMarker, EmptyMarkerNeverMatches) {
  const auto scan = scan_completion_marker("text", "  ");
  EXPECT_FALSE(scan.claimed);
  EXPECT_EQ(scan.visible, "text");
}

TEST(CompletionMarker, CustomMarkerWithSpaces) {
  EXPECT_TRUE(scan_completion_marker("done.\nTASK   COMPLETE", "TASK COMPLETE").claimed);
}

} // namespace
} // namespace ralph::verify
