#include "ralph/tools/glob.h"

#include <gtest/gtest.h>

namespace ralph::tools {
namespace {

TEST(Glob, WithoutSlashMatchesTheFileNameAnywhere) {
  const Glob glob("test_*.py");
  EXPECT_TRUE(glob.matches("test_a.py"));
  EXPECT_TRUE(glob.matches("deep/down/test_b.py"));
  EXPECT_FALSE(glob.matches("tests/a.py"));
}

TEST(Glob, WithSlashMatchesThePathAndStarCrossesDirectories) {
  EXPECT_TRUE(Glob("tests/**").matches("tests/unit/a.py"));
  EXPECT_TRUE(Glob("tests/*").matches("tests/unit/a.py"));
  EXPECT_FALSE(Glob("tests/*").matches("src/tests/a.py"));
}

TEST(Glob, BracesExpand) {
  const Glob glob("*.{h,cpp}");
  EXPECT_TRUE(glob.matches("a.h"));
  EXPECT_TRUE(glob.matches("src/a.cpp"));
  EXPECT_FALSE(glob.matches("a.c"));
}

TEST(Glob, EmptyMatchesEverything) {
  EXPECT_TRUE(Glob("").matches("any/thing"));
}

} // namespace
} // namespace ralph::tools
