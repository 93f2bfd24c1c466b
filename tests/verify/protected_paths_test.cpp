#include "support/temp_dir.h"

#include "ralph/verify/protected_paths.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::verify {
namespace {

using ::testing::HasSubstr;

TEST(ProtectedPaths, UnchangedFilesPassAndEveryKindOfChangeIsNamed) {
  testing::TempDir ws;
  ws.write("tests/test_a.py", "assert 1");
  ws.write("tests/test_b.py", "assert 2");
  ws.write("src/a.py", "x = 1");
  const std::vector<std::string> globs{"tests/**"};
  auto baseline = snapshot_protected(ws.path(), globs);
  ASSERT_TRUE(baseline);
  EXPECT_EQ(baseline->digests.size(), 2u);
  ProtectedPathsVerifier verifier(globs, *baseline);
  Attempt attempt;
  attempt.workspace = ws.path();

  ws.write("src/a.py", "x = 2"); // not protected
  EXPECT_EQ(verifier.verify(attempt, CancelToken()).result, Outcome::pass);

  ws.write("tests/test_a.py", "assert True  # weakened");
  std::filesystem::remove(ws.path() / "tests/test_b.py");
  ws.write("tests/test_c.py", "pass");
  const auto verdict = verifier.verify(attempt, CancelToken());
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "rule_violation");
  EXPECT_THAT(verdict.feedback, HasSubstr("tests/test_a.py (modified)"));
  EXPECT_THAT(verdict.feedback, HasSubstr("tests/test_b.py (deleted)"));
  EXPECT_THAT(verdict.feedback, HasSubstr("tests/test_c.py (added)"));
}

TEST(ProtectedPaths, FileNameGlobsMatchAnywhereAndGitIsSkipped) {
  testing::TempDir ws;
  ws.write("a/b/test_x.py", "1");
  ws.write(".git/test_y.py", "1");
  auto baseline = snapshot_protected(ws.path(), {"test_*.py"});
  ASSERT_TRUE(baseline);
  ASSERT_EQ(baseline->digests.size(), 1u);
  EXPECT_EQ(baseline->digests.begin()->first, "a/b/test_x.py");
}

} // namespace
} // namespace ralph::verify
