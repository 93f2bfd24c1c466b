#include "ralph/verify/completion_marker.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// Everything a filter shows of `pieces`, fed one after the other, and what it holds at the end.
std::string filtered(const std::vector<std::string>& pieces, std::string_view marker = k_marker) {
  MarkerFilter filter{std::string(marker)};
  std::string shown;
  for (const std::string& piece : pieces) {
    shown += filter.feed(piece);
  }
  return shown + filter.flush();
}

// The text cut into pieces of `size` bytes, the last one shorter.
std::vector<std::string> cut(std::string_view text, std::size_t size) {
  std::vector<std::string> pieces;
  for (std::size_t at = 0; at < text.size(); at += size) {
    pieces.emplace_back(text.substr(at, size));
  }
  return pieces;
}

TEST(MarkerFilter, TakesTheMarkerOutOfTextFedByteByByte) {
  const std::string text =
      "All tests pass.\n< Promise >done</promise>\nand a <promise>DONE</promise>.";
  for (std::size_t size = 1; size <= text.size(); ++size) {
    EXPECT_EQ(filtered(cut(text, size)), "All tests pass.\n\nand a .") << "pieces of " << size;
  }
}

TEST(MarkerFilter, HoldsBackOnlyWhatMayStartTheMarker) {
  MarkerFilter filter{std::string(k_marker)};
  EXPECT_EQ(filter.feed("Done <prom"), "Done ");
  EXPECT_EQ(filter.feed("ised land"), "<promised land");
  EXPECT_EQ(filter.feed(" <"), " ");
  EXPECT_EQ(filter.flush(), "<") << "no more text: it was not the marker";
  EXPECT_EQ(filter.flush(), "");
}

TEST(MarkerFilter, AnEmptyMarkerFiltersNothing) {
  EXPECT_EQ(filtered({"<promise>DO", "NE</promise>"}, ""), "<promise>DONE</promise>");
  EXPECT_EQ(filtered({"a <b", "> c"}, "  "), "a <b> c");
}

} // namespace
} // namespace ralph::verify
