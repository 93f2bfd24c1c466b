#include "tools/output_capture.h"

#include <gtest/gtest.h>

#include <string>

namespace ralph::tools {
namespace {

TEST(OutputCapture, KeepsEverythingThatFits) {
  OutputCapture capture(10);
  capture.append("hello");
  capture.append("world");
  EXPECT_FALSE(capture.truncated());
  EXPECT_EQ(capture.text(), "helloworld");
  EXPECT_EQ(capture.total(), 10u);
}

TEST(OutputCapture, KeepsHeadAndLargerTailAroundAMarker) {
  OutputCapture capture(10);
  for (char c = 'a'; c <= 'z'; ++c) {
    capture.append(std::string(1, c));
  }
  EXPECT_TRUE(capture.truncated());
  EXPECT_EQ(capture.total(), 26u);
  EXPECT_EQ(capture.text(), "abcd\n[... 16 bytes omitted ...]\nuvwxyz");
}

TEST(OutputCapture, UsesTheWholeBudgetWhenJustOverTheLimit) {
  OutputCapture capture(10);
  capture.append("0123456789X");
  EXPECT_EQ(capture.text(), "0123\n[... 1 bytes omitted ...]\n56789X");
}

TEST(OutputCapture, CutsOnUtf8Boundaries) {
  OutputCapture capture(10);
  // "é" is two bytes; a byte cut would split one at both ends.
  capture.append("aaa\xC3\xA9" + std::string(20, '-') + "\xC3\xA9zzzz");
  const std::string text = capture.text();
  EXPECT_EQ(text.substr(0, 3), "aaa");
  EXPECT_EQ(text.substr(text.size() - 6), "\xC3\xA9zzzz");
  EXPECT_NE(text.find("[... 22 bytes omitted ...]"), std::string::npos);
}

TEST(OutputCapture, CutsAtLineBreaksNearTheCut) {
  OutputCapture capture(40);
  for (int i = 1; i <= 30; ++i) {
    capture.append("line " + std::to_string(i) + "\n");
  }
  EXPECT_EQ(capture.text(),
            "line 1\nline 2\n[... 193 bytes omitted ...]\nline 28\nline 29\nline 30\n");
}

TEST(OutputCapture, MemoryStaysBoundedForLargeStreams) {
  OutputCapture capture(100);
  const std::string chunk(4096, 'x');
  for (int i = 0; i < 10000; ++i) {
    capture.append(chunk);
  }
  EXPECT_EQ(capture.total(), 4096u * 10000u);
  EXPECT_LT(capture.text().size(), 200u);
}

} // namespace
} // namespace ralph::tools
