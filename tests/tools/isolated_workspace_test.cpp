#include "support/temp_dir.h"

#include "ralph/tools/isolated_workspace.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ralph::tools {
namespace {

using ralph::testing::TempDir;
namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class IsolatedWorkspaceTest : public ::testing::Test {
protected:
  // Runs a shell line in `dir`, failing the test when it fails.
  void sh(const fs::path& dir, const std::string& line) {
    ProcessSpec spec{.argv = {"/bin/sh", "-c", line}, .cwd = dir};
    spec.env = {{"GIT_AUTHOR_NAME", "t"},
                {"GIT_AUTHOR_EMAIL", "t@t"},
                {"GIT_COMMITTER_NAME", "t"},
                {"GIT_COMMITTER_EMAIL", "t@t"},
                {"GIT_CONFIG_GLOBAL", "/dev/null"}};
    const auto result = m_runner.run(spec, {});
    ASSERT_TRUE(result && result->exit_code == 0) << line << ": " << (result ? result->output : "");
  }
  void make_repo() {
    sh(m_source.path(), "git init -q -b main && git add -A && git commit -qm base");
  }

  TempDir m_source;
  TempDir m_places;
  PosixProcessRunner m_runner;
};

TEST_F(IsolatedWorkspaceTest, AWorktreeCarriesTheSourceAsItIsAndItsChangesStayInIt) {
  m_source.write("tracked.txt", "one\n");
  m_source.write(".gitignore", "ignored.txt\n");
  make_repo();
  m_source.write("tracked.txt", "one, changed\n"); // uncommitted
  m_source.write("new/untracked.txt", "new\n");
  m_source.write("ignored.txt", "secret\n");

  const auto made = make_isolated_workspace(
      m_runner, {.source = m_source.path(), .path = m_places.path() / "a", .branch = "ralph/a"},
      {});
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_TRUE(made->worktree);
  EXPECT_EQ(made->branch, "ralph/a");
  EXPECT_FALSE(made->base_commit.empty());
  EXPECT_EQ(slurp(made->path / "tracked.txt"), "one, changed\n");
  EXPECT_EQ(slurp(made->path / "new" / "untracked.txt"), "new\n");
  EXPECT_FALSE(fs::exists(made->path / "ignored.txt"));

  // A second one from the same source; a change in the first never reaches it or the source.
  const auto other = make_isolated_workspace(
      m_runner, {.source = m_source.path(), .path = m_places.path() / "b", .branch = "ralph/b"},
      {});
  ASSERT_TRUE(other) << other.error().message;
  sh(made->path, "echo mine > tracked.txt && git add -A && git commit -qm mine");
  EXPECT_EQ(slurp(other->path / "tracked.txt"), "one, changed\n");
  EXPECT_EQ(m_source.read("tracked.txt"), "one, changed\n");

  const auto found = find_isolated_workspace(
      m_runner, {.source = m_source.path(), .path = m_places.path() / "a", .branch = "ralph/a"},
      {});
  ASSERT_TRUE(found && *found);
  EXPECT_EQ((*found)->path, made->path);
  ASSERT_TRUE(remove_isolated_workspace(m_runner, *made, m_source.path(), {}));
  EXPECT_FALSE(fs::exists(made->root));
}

TEST_F(IsolatedWorkspaceTest, ARefStartsTheWorktreeThereAndABadRefIsAUsageError) {
  m_source.write("f.txt", "v1\n");
  make_repo();
  sh(m_source.path(), "git tag v1 && echo v2 > f.txt && git commit -qam v2");
  const auto made = make_isolated_workspace(
      m_runner,
      {.source = m_source.path(), .path = m_places.path() / "a", .branch = "b1", .ref = "v1"}, {});
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_EQ(slurp(made->path / "f.txt"), "v1\n");

  const auto bad = make_isolated_workspace(
      m_runner,
      {.source = m_source.path(), .path = m_places.path() / "c", .branch = "b2", .ref = "nope"},
      {});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::usage);
  EXPECT_NE(bad.error().message.find("nope"), std::string::npos) << bad.error().message;
}

TEST_F(IsolatedWorkspaceTest, OutsideGitItIsACopyWithoutTheStoreButWithItsConfig) {
  m_source.write("src/a.txt", "a\n");
  m_source.write(".ralph/config.toml", "model = \"x/y\"\n");
  m_source.write(".ralph/ralph.db", "not for copies");
  const auto made = make_isolated_workspace(
      m_runner, {.source = m_source.path(), .path = m_places.path() / "copy", .branch = "x"}, {});
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_FALSE(made->worktree);
  EXPECT_EQ(slurp(made->path / "src" / "a.txt"), "a\n");
  EXPECT_EQ(slurp(made->path / ".ralph" / "config.toml"), "model = \"x/y\"\n");
  EXPECT_FALSE(fs::exists(made->path / ".ralph" / "ralph.db"));

  const auto again = make_isolated_workspace(
      m_runner, {.source = m_source.path(), .path = made->path, .branch = "x"}, {});
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("already exists"), std::string::npos);
}

} // namespace
} // namespace ralph::tools
