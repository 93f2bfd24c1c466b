#include "git_shell.h"
#include "support/temp_dir.h"

#include "ralph/tools/isolated_workspace.h"
#include "ralph/tools/repo_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

namespace ralph::tools {
namespace {

using ralph::testing::TempDir;
namespace fs = std::filesystem;

class RepoCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_upstream.write("lib.txt", "one\n");
    m_git.sh(m_upstream.path(), "git init -q -b main && git add -A && git commit -qm one");
  }

  // A worktree of the cached clone at `ref`, as a worker makes one for a goal.
  Result<IsolatedWorkspace> worktree(const fs::path& clone, const std::string& ref,
                                     const std::string& name) {
    return make_isolated_workspace(
        m_git.runner(),
        {.source = clone, .path = m_places.path() / name, .branch = "ralph/" + name, .ref = ref},
        {});
  }

  // Every file under the cache, its path and its bytes, for looking for a secret in them.
  std::string everything_in_cache() const {
    std::string all;
    for (const auto& entry : fs::recursive_directory_iterator(m_cache_dir.path())) {
      all += entry.path().string() + "\n";
      if (entry.is_regular_file()) {
        std::ifstream in(entry.path(), std::ios::binary);
        std::ostringstream bytes;
        bytes << in.rdbuf();
        all += bytes.str();
      }
    }
    return all;
  }

  std::string url() const { return "file://" + m_upstream.path().string(); }

  GitShell m_git;
  TempDir m_upstream;
  TempDir m_cache_dir;
  TempDir m_places;
  RepoCache m_cache{m_cache_dir.path()};
};

TEST_F(RepoCacheTest, ClonesOnFirstUseAndWorktreesStartFromTheRefOrTheRemotesHead) {
  m_git.sh(m_upstream.path(), "git tag v1 && echo two > lib.txt && git commit -qam two");
  const auto clone = m_cache.clone_of(m_git.runner(), url(), "v1", {});
  ASSERT_TRUE(clone) << clone.error().message;

  const auto at_tag = worktree(*clone, "v1", "tag");
  ASSERT_TRUE(at_tag) << at_tag.error().message;
  EXPECT_TRUE(at_tag->worktree);
  EXPECT_EQ(m_git.out(at_tag->path, "cat lib.txt"), "one");
  const auto at_head = worktree(*clone, "", "head");
  ASSERT_TRUE(at_head) << at_head.error().message;
  EXPECT_EQ(m_git.out(at_head->path, "cat lib.txt"), "two");
  // Found again after a restart, as the same worktree.
  const auto found = find_isolated_workspace(
      m_git.runner(), {.source = *clone, .path = m_places.path() / "head", .branch = "ralph/head"},
      {});
  ASSERT_TRUE(found && *found) << (found ? "gone" : found.error().message);
  EXPECT_TRUE((*found)->worktree);
  EXPECT_EQ((*found)->path, m_places.path() / "head");
}

TEST_F(RepoCacheTest, ABranchIsFetchedToTheRemotesNewestAndNewRefsAreFetched) {
  const auto first = m_cache.clone_of(m_git.runner(), url(), "main", {});
  ASSERT_TRUE(first) << first.error().message;
  m_git.sh(m_upstream.path(), "echo two > lib.txt && git commit -qam two && git branch feature && "
                              "git tag v2");
  const std::string newest = m_git.out(m_upstream.path(), "git rev-parse HEAD");

  for (const std::string& ref : std::vector<std::string>{"main", "", "feature", "v2", newest}) {
    const auto clone = m_cache.clone_of(m_git.runner(), url(), ref, {});
    ASSERT_TRUE(clone) << ref << ": " << clone.error().message;
    EXPECT_EQ(*clone, *first);
    EXPECT_EQ(m_git.out(*clone, "git rev-parse '" + (ref.empty() ? "HEAD" : ref) + "^{commit}'"),
              newest)
        << ref;
  }
}

TEST_F(RepoCacheTest, ARefTheRemoteDoesNotHaveIsAUsageErrorNamingIt) {
  const auto clone = m_cache.clone_of(m_git.runner(), url(), "no-such-branch", {});
  ASSERT_FALSE(clone);
  EXPECT_EQ(clone.error().kind, ErrorKind::usage);
  EXPECT_NE(clone.error().message.find("no-such-branch"), std::string::npos);
  EXPECT_NE(clone.error().message.find(url()), std::string::npos) << clone.error().message;

  const auto missing = m_cache.clone_of(m_git.runner(), url() + "-gone", "main", {});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::io);
  EXPECT_NE(missing.error().message.find(url() + "-gone"), std::string::npos);
}

TEST_F(RepoCacheTest, ACredentialInTheUrlIsNeverShownNorStored) {
  // file:// URLs accept (and ignore) a user and password, so the clone really happens.
  const std::string secret_url = "file://user:s3cr3t-token@localhost" + m_upstream.path().string();
  const auto clone = m_cache.clone_of(m_git.runner(), secret_url, "main", {});
  ASSERT_TRUE(clone) << clone.error().message;
  const auto bad_ref = m_cache.clone_of(m_git.runner(), secret_url, "nope", {});
  ASSERT_FALSE(bad_ref);
  EXPECT_EQ(bad_ref.error().message.find("s3cr3t-token"), std::string::npos)
      << bad_ref.error().message;
  EXPECT_NE(bad_ref.error().message.find("file://user:***@localhost"), std::string::npos)
      << bad_ref.error().message;
  EXPECT_EQ(everything_in_cache().find("s3cr3t-token"), std::string::npos);

  const std::string secret_gone = "https://user:s3cr3t-token@127.0.0.1:1/x.git";
  const auto unreachable = m_cache.clone_of(m_git.runner(), secret_gone, "main", {});
  ASSERT_FALSE(unreachable);
  EXPECT_EQ(unreachable.error().kind, ErrorKind::io);
  EXPECT_EQ(unreachable.error().message.find("s3cr3t-token"), std::string::npos)
      << unreachable.error().message;
  EXPECT_NE(unreachable.error().message.find("https://***@127.0.0.1:1/x.git"), std::string::npos)
      << unreachable.error().message;
  EXPECT_EQ(everything_in_cache().find("s3cr3t-token"), std::string::npos);
}

TEST_F(RepoCacheTest, ARelativeFolderIsTheOneUnderTheCurrentFolder) {
  RepoCache relative(fs::relative(m_cache_dir.path()));
  const auto clone = relative.clone_of(m_git.runner(), url(), "main", {});
  ASSERT_TRUE(clone) << clone.error().message;
  EXPECT_TRUE(clone->is_absolute());
  EXPECT_EQ(clone->parent_path().parent_path(), m_cache_dir.path());
  EXPECT_TRUE(worktree(*clone, "main", "w"));
}

TEST_F(RepoCacheTest, ACloneCutShortByACrashIsRedone) {
  const auto clone = m_cache.clone_of(m_git.runner(), url(), "main", {});
  ASSERT_TRUE(clone) << clone.error().message;
  // What a crash mid-clone leaves: the temporary clone, never the finished one.
  const fs::path home = clone->parent_path();
  fs::remove_all(*clone);
  fs::create_directories(home / "clone.tmp" / "objects");
  std::ofstream(home / "clone.tmp" / "HEAD") << "garbage";

  const auto again = m_cache.clone_of(m_git.runner(), url(), "main", {});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(*again, *clone);
  EXPECT_FALSE(fs::exists(home / "clone.tmp"));
  const auto made = worktree(*again, "main", "after-crash");
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_EQ(m_git.out(made->path, "cat lib.txt"), "one");
}

TEST_F(RepoCacheTest, ManyCallersAtOnceShareOneClone) {
  m_git.sh(m_upstream.path(), "git branch b1 && git branch b2 && git tag t1");
  const std::vector<std::string> refs = {"main", "b1", "b2", "t1", "", "main", "b1", "b2"};
  std::vector<Result<fs::path>> clones(refs.size(), fs::path());
  {
    std::vector<std::jthread> callers;
    for (std::size_t i = 0; i < refs.size(); ++i) {
      // Caches of their own on one folder, as separate processes have.
      callers.emplace_back([&, i] {
        RepoCache cache(m_cache_dir.path());
        PosixProcessRunner runner;
        clones[i] = cache.clone_of(runner, url(), refs[i], {});
      });
    }
  }
  std::set<fs::path> distinct;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    ASSERT_TRUE(clones[i]) << refs[i] << ": " << clones[i].error().message;
    distinct.insert(*clones[i]);
  }
  EXPECT_EQ(distinct.size(), 1U);
  EXPECT_EQ(std::distance(fs::directory_iterator(m_cache_dir.path()), fs::directory_iterator()), 1);
  EXPECT_EQ(m_git.out(*clones[0], "git fsck --no-dangling 2>&1 && git for-each-ref | wc -l"), "4");
}

TEST_F(RepoCacheTest, AFetchLeavesTheBranchOfAWorktreeAlone) {
  const auto clone = m_cache.clone_of(m_git.runner(), url(), "main", {});
  ASSERT_TRUE(clone) << clone.error().message;
  const auto made = worktree(*clone, "main", "g1");
  ASSERT_TRUE(made) << made.error().message;
  const std::string mine = m_git.out(made->path, "git rev-parse HEAD");
  // The goal's branch reaches the remote (pushed as a result) with other work on it.
  m_git.sh(m_upstream.path(),
           "git checkout -qb ralph/g1 && echo other > lib.txt && git commit -qam other && "
           "git checkout -q main && echo three > lib.txt && git commit -qam three");

  const auto fetched = m_cache.clone_of(m_git.runner(), url(), "main", {});
  ASSERT_TRUE(fetched) << fetched.error().message;
  EXPECT_EQ(m_git.out(*clone, "git rev-parse main"),
            m_git.out(m_upstream.path(), "git rev-parse main"));
  EXPECT_EQ(m_git.out(made->path, "git rev-parse HEAD"), mine);
  EXPECT_EQ(m_git.out(made->path, "git status --porcelain"), "");
}

} // namespace
} // namespace ralph::tools
