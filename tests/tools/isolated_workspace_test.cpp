#include "support/temp_dir.h"

#include "ralph/tools/isolated_workspace.h"
#include "ralph/tools/workspace_changes.h"

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
  // A shell line's trimmed output in `dir`.
  std::string out(const fs::path& dir, const std::string& line) {
    ProcessSpec spec{.argv = {"/bin/sh", "-c", line}, .cwd = dir};
    spec.env = {{"GIT_CONFIG_GLOBAL", "/dev/null"}};
    const auto result = m_runner.run(spec, {});
    EXPECT_TRUE(result && result->exit_code == 0) << line;
    std::string text = result ? result->output : "";
    while (!text.empty() && text.back() == '\n') {
      text.pop_back();
    }
    return text;
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
  EXPECT_TRUE((*found)->worktree);
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

// An attempt's worktree: its start committed (untracked files of the source included), then its
// work committed on its branch.
struct Attempt {
  IsolatedWorkspace workspace;
  std::string start;
};

class WorkspaceChangesTest : public IsolatedWorkspaceTest {
protected:
  Attempt start_attempt() {
    const auto made = make_isolated_workspace(
        m_runner, {.source = m_source.path(), .path = m_places.path() / "1", .branch = "ralph/1"},
        {});
    EXPECT_TRUE(made) << made.error().message;
    const auto start = commit_worktree(m_runner, *made, "start", {});
    EXPECT_TRUE(start) << start.error().message;
    return {*made, *start};
  }
  WorkspaceChanges finish(const Attempt& attempt, std::string& end) {
    const auto committed = commit_worktree(m_runner, attempt.workspace, "end", {});
    EXPECT_TRUE(committed) << committed.error().message;
    end = *committed;
    const auto changes =
        changes_between_commits(m_runner, attempt.workspace.root, attempt.start, end, {});
    EXPECT_TRUE(changes) << changes.error().message;
    return *changes;
  }
};

TEST_F(WorkspaceChangesTest, CountsChangedLinesWithNewFilesAndWithoutRalphsOwnFolder) {
  m_source.write("f.txt", "a\nb\nc\n");
  make_repo();
  m_source.write("untracked.txt", "was here before\n");
  const Attempt attempt = start_attempt();
  m_source.write("untracked.txt", "the source changed; the attempt's copy did not\n");
  const fs::path in = attempt.workspace.path;
  sh(in, "printf 'a\\nB\\nc\\n' > f.txt && printf 'x\\ny\\n' > new.txt && "
         "mkdir -p .ralph/outputs && echo log > .ralph/outputs/x.log && echo gone > /dev/null");
  std::string end;
  const WorkspaceChanges changes = finish(attempt, end);
  // f.txt: one line replaced (1 + 1); new.txt: two lines added. The untracked file of the source
  // was part of the start, .ralph never part of the work.
  EXPECT_EQ(changes.added, 3);
  EXPECT_EQ(changes.removed, 1);
  EXPECT_EQ(changes.changed_lines(), 4);
  EXPECT_EQ(changes.files, (std::vector<std::string>{"f.txt", "new.txt"}));
  EXPECT_NE(changes.patch.find("+B"), std::string::npos) << changes.patch;
  EXPECT_EQ(out(in, "git branch --show-current"), "ralph/1");
  EXPECT_EQ(in, m_places.path() / "1"); // the source is the repository's top: no trailing "/"
}

TEST_F(WorkspaceChangesTest, AppliedAsACommitWithoutTheUsersUncommittedWork) {
  m_source.write("f.txt", "1\n2\n3\n4\n5\n6\n7\n8\n");
  make_repo();
  m_source.write("f.txt", "1\n2\n3\n4\n5\n6\n7\nmine\n"); // the user's, uncommitted
  const Attempt attempt = start_attempt();
  sh(attempt.workspace.path, "sed -i 's/^1$/one/' f.txt && echo new > added.txt");
  std::string end;
  const WorkspaceChanges changes = finish(attempt, end);
  const std::string head = out(m_source.path(), "git rev-parse HEAD");

  const auto commit =
      apply_as_commit(m_runner, m_source.path(), attempt.start, end, changes, "best", {});
  ASSERT_TRUE(commit) << commit.error().message;
  EXPECT_EQ(out(m_source.path(), "git rev-parse HEAD"), *commit);
  EXPECT_EQ(out(m_source.path(), "git rev-parse HEAD~1"), head);
  EXPECT_EQ(out(m_source.path(), "git log -1 --format=%s"), "best");
  // The commit: the attempt's changes on HEAD, not the user's line; the work tree: both.
  EXPECT_EQ(out(m_source.path(), "git show HEAD:f.txt"), "one\n2\n3\n4\n5\n6\n7\n8");
  EXPECT_EQ(m_source.read("f.txt"), "one\n2\n3\n4\n5\n6\n7\nmine\n");
  EXPECT_EQ(m_source.read("added.txt"), "new\n");
  // Only the user's change is left uncommitted, and not staged.
  EXPECT_EQ(out(m_source.path(), "git status --porcelain"), " M f.txt");
}

TEST_F(WorkspaceChangesTest, AConflictingChangeInTheWorkTreeIsRefusedAndNothingApplied) {
  m_source.write("f.txt", "1\n2\n3\n");
  make_repo();
  const Attempt attempt = start_attempt();
  sh(attempt.workspace.path, "printf 'one\\n2\\n3\\n' > f.txt && echo new > added.txt");
  std::string end;
  const WorkspaceChanges changes = finish(attempt, end);
  m_source.write("f.txt", "uno\n2\n3\n"); // the user went on meanwhile
  const std::string head = out(m_source.path(), "git rev-parse HEAD");

  const auto commit =
      apply_as_commit(m_runner, m_source.path(), attempt.start, end, changes, "best", {});
  ASSERT_FALSE(commit);
  EXPECT_NE(commit.error().message.find("f.txt"), std::string::npos) << commit.error().message;
  EXPECT_EQ(out(m_source.path(), "git rev-parse HEAD"), head);
  EXPECT_EQ(m_source.read("f.txt"), "uno\n2\n3\n");
  EXPECT_FALSE(fs::exists(m_source.path() / "added.txt"));
}

TEST_F(WorkspaceChangesTest, FoldersAreComparedAndAppliedWithDeletionsAndConflictsRefused) {
  m_source.write("keep.txt", "same\n");
  m_source.write("f.txt", "a\nb\n");
  m_source.write("gone.txt", "bye\n");
  m_source.write(".ralph/ralph.db", "store");
  TempDir before;
  TempDir after;
  before.write("keep.txt", "same\n");
  before.write("f.txt", "a\nb\n");
  before.write("gone.txt", "bye\n");
  after.write("keep.txt", "same\n");
  after.write("f.txt", "a\nB\n");
  after.write("sub/new.txt", "1\n2\n3\n");
  after.write(".ralph/outputs/log", "not work");

  const auto changes = changes_between_folders(m_runner, before.path(), after.path(), {});
  ASSERT_TRUE(changes) << changes.error().message;
  EXPECT_EQ(changes->files, (std::vector<std::string>{"f.txt", "gone.txt", "sub/new.txt"}));
  EXPECT_EQ(changes->added, 4);   // B, 1, 2, 3
  EXPECT_EQ(changes->removed, 2); // b, bye
  EXPECT_NE(changes->patch.find("+++ b/sub/new.txt"), std::string::npos) << changes->patch;

  m_source.write("f.txt", "changed meanwhile\n");
  const auto refused = apply_folder_changes(before.path(), after.path(), *changes, m_source.path());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("f.txt"), std::string::npos);
  EXPECT_TRUE(fs::exists(m_source.path() / "gone.txt"));
  EXPECT_FALSE(fs::exists(m_source.path() / "sub" / "new.txt"));

  m_source.write("f.txt", "a\nb\n");
  ASSERT_TRUE(apply_folder_changes(before.path(), after.path(), *changes, m_source.path()));
  EXPECT_EQ(m_source.read("f.txt"), "a\nB\n");
  EXPECT_EQ(m_source.read("sub/new.txt"), "1\n2\n3\n");
  EXPECT_FALSE(fs::exists(m_source.path() / "gone.txt"));
  EXPECT_EQ(m_source.read("keep.txt"), "same\n");
  EXPECT_EQ(m_source.read(".ralph/ralph.db"), "store");
}

} // namespace
} // namespace ralph::tools
