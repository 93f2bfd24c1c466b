#include "git_shell.h"
#include "support/temp_dir.h"

#include "ralph/tools/isolated_workspace.h"
#include "ralph/tools/workspace_changes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ralph::tools {
namespace {

using ralph::testing::TempDir;
namespace fs = std::filesystem;

// A goal's result leaving its worktree: a branch pushed to a remote, or a patch applied to a
// fresh worktree on another machine.
class WorkspaceResultTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_source.write("keep.txt", "one\ntwo\nthree\n");
    m_source.write("gone.txt", "bye\n");
    m_source.write("logo.bin", std::string("\x89PNG\0\x01\x02", 7));
    m_git.sh(m_source.path(), "git init -q -b main && git add -A && git commit -qm base");
  }

  IsolatedWorkspace workspace(const std::string& name) {
    auto made = make_isolated_workspace(m_git.runner(),
                                        {.source = m_source.path(),
                                         .path = m_places.path() / name,
                                         .branch = "ralph/batch/" + name,
                                         .ref = "main"},
                                        {});
    EXPECT_TRUE(made) << made.error().message;
    return made ? *made : IsolatedWorkspace{};
  }

  GitShell m_git;
  TempDir m_source;
  TempDir m_places;
};

TEST_F(WorkspaceResultTest, TheBranchIsPushedUnderItsNameAndPushedAgainOverItself) {
  TempDir remote;
  m_git.sh(remote.path(), "git init -q --bare");
  const IsolatedWorkspace made = workspace("g1");
  m_git.sh(made.root, "echo done > result.txt");
  ASSERT_TRUE(commit_worktree(m_git.runner(), made, "goal g1: first", {}));
  const auto pushed = push_branch(m_git.runner(), made, remote.path().string(), {});
  ASSERT_TRUE(pushed) << pushed.error().message;
  EXPECT_EQ(m_git.out(remote.path(), "git log --format=%s ralph/batch/g1"), "goal g1: first\nbase");

  // The goal's branch is its own: a rewritten one replaces what the remote had.
  m_git.sh(made.root, "git reset -q --hard main && echo again > result.txt");
  ASSERT_TRUE(commit_worktree(m_git.runner(), made, "goal g1: second", {}));
  const auto again = push_branch(m_git.runner(), made, "file://" + remote.path().string(), {});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(m_git.out(remote.path(), "git log --format=%s ralph/batch/g1"),
            "goal g1: second\nbase");
}

TEST_F(WorkspaceResultTest, APushThatFailsNamesTheRemoteWithoutItsCredentials) {
  const IsolatedWorkspace made = workspace("g2");
  const auto pushed =
      push_branch(m_git.runner(), made, "https://user:s3cr3t-token@127.0.0.1:1/r.git", {});
  ASSERT_FALSE(pushed);
  EXPECT_EQ(pushed.error().kind, ErrorKind::io);
  EXPECT_EQ(pushed.error().message.find("s3cr3t-token"), std::string::npos)
      << pushed.error().message;
  EXPECT_NE(pushed.error().message.find("ralph/batch/g2 to https://***@127.0.0.1:1/r.git"),
            std::string::npos)
      << pushed.error().message;

  const IsolatedWorkspace copy{.path = m_places.path(), .root = m_places.path()};
  const auto refused = push_branch(m_git.runner(), copy, "/anywhere", {});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::usage);
}

TEST_F(WorkspaceResultTest, APatchRestoresAWorkspaceWithBinaryNewAndDeletedFiles) {
  const IsolatedWorkspace before = workspace("a");
  const std::string base = m_git.out(before.root, "git rev-parse HEAD");
  m_git.sh(before.root, "printf 'one\\nTWO\\nthree\\n' > keep.txt && rm gone.txt && "
                        "mkdir -p new && echo fresh > new/file.txt && "
                        "printf '\\211PNG\\000\\377\\376' > logo.bin && "
                        "printf '\\000\\001binary' > new/data.bin && "
                        // Last in the patch: a binary file's hunk ends in a blank line.
                        "printf '\\000last' > zz.bin");
  const auto head = commit_worktree(m_git.runner(), before, "checkpoint", {});
  ASSERT_TRUE(head) << head.error().message;
  const auto changes = changes_between_commits(m_git.runner(), before.root, base, *head, {});
  ASSERT_TRUE(changes) << changes.error().message;

  const IsolatedWorkspace after = workspace("b");
  const auto applied = apply_patch(m_git.runner(), after.root, changes->patch, {});
  ASSERT_TRUE(applied) << applied.error().message;
  for (const char* name : {"keep.txt", "logo.bin", "new/file.txt", "new/data.bin", "zz.bin"}) {
    EXPECT_EQ(m_git.out(after.root, std::string("od -c ") + name),
              m_git.out(before.root, std::string("od -c ") + name))
        << name;
  }
  EXPECT_FALSE(fs::exists(after.root / "gone.txt"));
  // In the work tree only: the next checkpoint commits them as the goal's work.
  EXPECT_EQ(m_git.out(after.root, "git status --porcelain"),
            " D gone.txt\n M keep.txt\n M logo.bin\n?? new/\n?? zz.bin");
  EXPECT_TRUE(apply_patch(m_git.runner(), after.root, "", {}));
}

TEST_F(WorkspaceResultTest, AWorktreePatchTakesTheFilesAsTheyAreAndLeavesTheIndexAndHeadAlone) {
  const IsolatedWorkspace before = workspace("a");
  const std::string base = m_git.out(before.root, "git rev-parse HEAD");
  m_git.sh(before.root, "printf 'one\\nTWO\\nthree\\n' > keep.txt && rm gone.txt && "
                        "echo staged > staged.txt && git add staged.txt && "
                        "printf '\\000\\001binary' > untracked.bin && "
                        "mkdir -p .ralph && echo session > .ralph/ralph.db");
  const std::string status = m_git.out(before.root, "git status --porcelain");
  const auto patch = worktree_patch(m_git.runner(), before, base, {});
  ASSERT_TRUE(patch) << patch.error().message;
  // An agent at work there sees nothing of it.
  EXPECT_EQ(m_git.out(before.root, "git status --porcelain"), status);
  EXPECT_EQ(m_git.out(before.root, "git rev-parse HEAD"), base);
  EXPECT_EQ(patch->find(".ralph"), std::string::npos) << *patch;

  const IsolatedWorkspace after = workspace("b");
  const auto applied = apply_patch(m_git.runner(), after.root, *patch, {});
  ASSERT_TRUE(applied) << applied.error().message;
  for (const char* name : {"keep.txt", "staged.txt", "untracked.bin", "logo.bin"}) {
    EXPECT_EQ(m_git.out(after.root, std::string("od -c ") + name),
              m_git.out(before.root, std::string("od -c ") + name))
        << name;
  }
  EXPECT_FALSE(fs::exists(after.root / "gone.txt"));
  EXPECT_FALSE(fs::exists(after.root / ".ralph"));
}

TEST_F(WorkspaceResultTest, APatchThatDoesNotApplyChangesNothing) {
  const IsolatedWorkspace before = workspace("a");
  const std::string base = m_git.out(before.root, "git rev-parse HEAD");
  m_git.sh(before.root, "echo fresh > added.txt && printf 'one\\nTWO\\nthree\\n' > keep.txt");
  const auto head = commit_worktree(m_git.runner(), before, "checkpoint", {});
  ASSERT_TRUE(head);
  const auto changes = changes_between_commits(m_git.runner(), before.root, base, *head, {});
  ASSERT_TRUE(changes);

  const IsolatedWorkspace other = workspace("b");
  m_git.sh(other.root, "printf 'one\\nzwei\\nthree\\n' > keep.txt"); // the same line, otherwise
  const auto refused = apply_patch(m_git.runner(), other.root, changes->patch, {});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::io);
  EXPECT_NE(refused.error().message.find(other.root.string()), std::string::npos);
  EXPECT_NE(refused.error().message.find("keep.txt"), std::string::npos) << refused.error().message;
  EXPECT_FALSE(fs::exists(other.root / "added.txt")); // the file that did fit was not made
  EXPECT_EQ(m_git.out(other.root, "cat keep.txt"), "one\nzwei\nthree");
  EXPECT_EQ(m_git.out(other.root, "git status --porcelain"), " M keep.txt");
}

} // namespace
} // namespace ralph::tools
