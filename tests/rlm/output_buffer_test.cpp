#include "rlm/output_buffer.h"

#include <gtest/gtest.h>

#include <string>

namespace ralph::rlm {
namespace {

const std::string k_euro = "\xE2\x82\xAC"; // one code point, 3 bytes

TEST(OutputBuffer, KeepsTextWithinTheBudget) {
  OutputBuffer out(10);
  out.append("hello\n");
  EXPECT_EQ(out.finish(""), "hello\n");
  EXPECT_EQ(out.dropped(), 0U);
}

TEST(OutputBuffer, KeepsTheHeadAndCountsTheRestInCodePoints) {
  OutputBuffer out(4);
  out.append("ab");
  out.append(k_euro + k_euro + k_euro + "xyz");
  EXPECT_EQ(out.dropped(), 4U);
  EXPECT_EQ(out.finish(""), "ab" + k_euro + k_euro + "\n[output truncated: 4 more chars]\n");
}

TEST(OutputBuffer, NeverCutsAUtf8Sequence) {
  for (std::size_t budget = 0; budget < 5; ++budget) {
    OutputBuffer out(budget);
    for (int i = 0; i < 5; ++i) {
      out.append(k_euro);
    }
    std::string expected;
    for (std::size_t i = 0; i < budget; ++i) {
      expected += k_euro;
    }
    expected += budget > 0 ? "\n" : "";
    expected += "[output truncated: " + std::to_string(5 - budget) + " more chars]\n";
    EXPECT_EQ(out.finish(""), expected) << budget;
  }
}

TEST(OutputBuffer, TrailerComesAfterTheMarker) {
  OutputBuffer out(3);
  out.append("abcdef");
  EXPECT_EQ(out.finish("error: boom"), "abc\n[output truncated: 3 more chars]\nerror: boom");
}

TEST(OutputBuffer, LongTrailerIsCutToo) {
  OutputBuffer out(3);
  const std::string text = out.finish(std::string(600, 'e'));
  EXPECT_EQ(text, std::string(500, 'e') + " [truncated: 100 more chars]");
}

TEST(CharPrefix, CountsCodePoints) {
  const std::string text = "a" + k_euro + "b";
  const CharPrefix prefix = char_prefix(text, 2);
  EXPECT_EQ(prefix.head, "a" + k_euro);
  EXPECT_EQ(prefix.dropped, 1U);
}

} // namespace
} // namespace ralph::rlm
