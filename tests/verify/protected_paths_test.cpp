#include "support/temp_dir.h"

#include "ralph/verify/protected_paths.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

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

// A real git work tree at `ws` (no commit needed for git's ignore rules).
void git_init(const testing::TempDir& ws) {
  const std::string command = "git init -q " + ws.path().string();
  ASSERT_EQ(std::system(command.c_str()), 0);
}

TEST(ProtectedPaths, FilesGitIgnoresAreLeftOutUnlessAGlobNamesThem) {
  testing::TempDir ws;
  git_init(ws);
  ws.write(".gitignore", "__pycache__/\n*.log\n");
  ws.write("tests/test_x.py", "1");
  ws.write("tests/__pycache__/test_x.cpython-311.pyc", "compiled");
  ws.write("tests/run.log", "log");

  const auto wide = snapshot_protected(ws.path(), {"tests/**"});
  ASSERT_TRUE(wide);
  ASSERT_EQ(wide->digests.size(), 1u);
  EXPECT_EQ(wide->digests.begin()->first, "tests/test_x.py");

  const auto named = snapshot_protected(ws.path(), {"tests/**", "*.pyc"});
  ASSERT_TRUE(named);
  EXPECT_EQ(named->digests.size(), 2u);
  EXPECT_TRUE(named->digests.contains("tests/__pycache__/test_x.cpython-311.pyc"));
}

TEST(ProtectedPaths, ChangesTheVerifiersMakeAreNotTheAgents) {
  testing::TempDir ws;
  ws.write("tests/test_x.py", "assert f()");
  const std::vector<std::string> globs{"tests/**"};
  auto baseline = snapshot_protected(ws.path(), globs);
  ASSERT_TRUE(baseline);
  ProtectedPathsVerifier verifier(globs, *baseline);
  Attempt attempt;
  attempt.workspace = ws.path();

  // Attempt 1: the test run (another verifier) writes a cache under tests/ while verifying.
  verifier.before_verifiers(attempt);
  ws.write("tests/__pycache__/test_x.pyc", "compiled 1");
  EXPECT_EQ(verifier.verify(attempt, CancelToken()).result, Outcome::pass);
  verifier.after_verifiers(attempt);

  // Attempt 2: the cache is still there, and rewritten by this attempt's test run.
  verifier.before_verifiers(attempt);
  ws.write("tests/__pycache__/test_x.pyc", "compiled 2");
  EXPECT_EQ(verifier.verify(attempt, CancelToken()).result, Outcome::pass);
  verifier.after_verifiers(attempt);

  // Attempt 3: the agent edits the test itself.
  ws.write("tests/test_x.py", "assert True");
  verifier.before_verifiers(attempt);
  const auto verdict = verifier.verify(attempt, CancelToken());
  verifier.after_verifiers(attempt);
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_THAT(verdict.feedback, HasSubstr("tests/test_x.py (modified)"));
  EXPECT_THAT(verdict.feedback, ::testing::Not(HasSubstr("pyc")));

  // Attempt 4: an edit the agent made earlier still counts; it is not absorbed.
  verifier.before_verifiers(attempt);
  EXPECT_EQ(verifier.verify(attempt, CancelToken()).result, Outcome::fail);
  verifier.after_verifiers(attempt);
}

} // namespace
} // namespace ralph::verify
