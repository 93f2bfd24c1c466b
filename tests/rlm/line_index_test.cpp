#include "rlm/line_index.h"

#include <gtest/gtest.h>

#include <string>

namespace ralph::rlm {
namespace {

LineIndex built(std::string_view text) {
  LineIndex index(text);
  EXPECT_TRUE(index.build([] { return true; }));
  return index;
}

TEST(LineIndex, CountsAFinalLineWithoutBreakAndStripsCr) {
  const std::string text = "one\r\ntwo\r\n\r\nfour";
  const LineIndex index = built(text);
  ASSERT_EQ(index.line_count(), 4U);
  EXPECT_EQ(index.line(1), "one");
  EXPECT_EQ(index.line(2), "two");
  EXPECT_EQ(index.line(3), "");
  EXPECT_EQ(index.line(4), "four");
}

TEST(LineIndex, TrailingBreakDoesNotStartALine) {
  EXPECT_EQ(built("a\nb\n").line_count(), 2U);
  EXPECT_EQ(built("a\n\n").line_count(), 2U);
  EXPECT_EQ(built("").line_count(), 0U);
  EXPECT_EQ(built("\n").line_count(), 1U);
  EXPECT_EQ(built("x").line_count(), 1U);
}

TEST(LineIndex, FindsLinesAcrossManyCheckpoints) {
  std::string text;
  for (int i = 1; i <= 1000; ++i) {
    text += "line " + std::to_string(i) + "\n";
  }
  const LineIndex index = built(text);
  ASSERT_EQ(index.line_count(), 1000U);
  for (std::size_t n : {1U, 63U, 64U, 65U, 128U, 129U, 500U, 999U, 1000U}) {
    EXPECT_EQ(index.line(n), "line " + std::to_string(n));
    const std::size_t start = index.line_start(n);
    EXPECT_EQ(index.line_of(start), n);
    EXPECT_EQ(index.line_of(start + index.line(n).size()), n) << "the break belongs to its line";
  }
}

TEST(LineIndex, StoppedBuildResumesWhereItLeftOff) {
  const std::string text(20U << 20, '\n'); // more than one scanning step
  LineIndex index(text);
  int asked = 0;
  EXPECT_FALSE(index.build([&] { return ++asked < 2; }));
  EXPECT_FALSE(index.complete());
  EXPECT_TRUE(index.build([] { return true; }));
  EXPECT_EQ(index.line_count(), text.size());
  EXPECT_EQ(index.line_of(text.size() - 1), text.size());
}

} // namespace
} // namespace ralph::rlm
