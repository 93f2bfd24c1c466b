#include "support/temp_dir.h"

#include "ralph/tools/workspace.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace ralph::tools {
namespace {

namespace fs = std::filesystem;
using ralph::testing::TempDir;

class WorkspaceTest : public ::testing::Test {
protected:
  // The workspace is TEMP/ws, so tests can put things next to it.
  static Workspace open_root(const TempDir& dir) {
    fs::create_directories(dir.path() / "ws");
    return *Workspace::open(dir.path() / "ws");
  }

  fs::path root() const { return m_dir.path() / "ws"; }

  void expect_outside(std::string_view path, Access access = Access::read) const {
    const auto result = m_ws.resolve(path, access);
    ASSERT_FALSE(result.has_value()) << path << " resolved to " << result->string();
    EXPECT_EQ(result.error().kind, ErrorKind::tool);
    EXPECT_NE(result.error().message.find("outside the workspace"), std::string::npos)
        << result.error().message;
    EXPECT_NE(result.error().message.find(std::string(path)), std::string::npos)
        << result.error().message;
  }

  fs::path resolved(std::string_view path, Access access = Access::read) const {
    const auto result = m_ws.resolve(path, access);
    EXPECT_TRUE(result.has_value()) << path << ": " << result.error().message;
    return result ? *result : fs::path();
  }

  TempDir m_dir;
  Workspace m_ws = open_root(m_dir);
};

TEST_F(WorkspaceTest, ResolvesRelativePathsFromTheRoot) {
  EXPECT_EQ(resolved("a/b.txt"), root() / "a/b.txt");
  EXPECT_EQ(resolved("./a/../b.txt"), root() / "b.txt");
  EXPECT_EQ(resolved("."), root());
}

TEST_F(WorkspaceTest, AcceptsAbsolutePathsInsideTheRoot) {
  EXPECT_EQ(resolved((root() / "src/x.cpp").string()), root() / "src/x.cpp");
}

TEST_F(WorkspaceTest, RefusesDotDotEscapes) {
  expect_outside("..");
  expect_outside("../secret.txt");
  expect_outside("a/../../secret.txt");
}

TEST_F(WorkspaceTest, RefusesAbsolutePathsOutside) {
  expect_outside("/etc/passwd");
  expect_outside(m_dir.path().string());
}

TEST_F(WorkspaceTest, RefusesSiblingWithTheRootAsPrefix) {
  fs::create_directories(m_dir.path() / "ws2");
  expect_outside((m_dir.path() / "ws2/file").string());
  expect_outside("../ws2/file");
}

TEST_F(WorkspaceTest, RefusesSymlinkPointingOutside) {
  fs::create_directories(m_dir.path() / "outside");
  fs::create_directory_symlink(m_dir.path() / "outside", root() / "link");
  expect_outside("link");
  expect_outside("link/file.txt");
  expect_outside("link/file.txt", Access::write);
}

TEST_F(WorkspaceTest, RefusesRelativeSymlinkClimbingOut) {
  fs::create_directories(root() / "sub");
  fs::create_directory_symlink("../..", root() / "sub/up");
  expect_outside("sub/up/x");
}

TEST_F(WorkspaceTest, FollowsSymlinksThatStayInside) {
  fs::create_directories(root() / "real");
  fs::create_directory_symlink("real", root() / "alias");
  EXPECT_EQ(resolved("alias/file.txt", Access::write), root() / "real/file.txt");
}

TEST_F(WorkspaceTest, DotDotAfterASymlinkClimbsFromItsTarget) {
  // The kernel resolves link/.. to the parent of the link's target, not back to the root.
  fs::create_directories(m_dir.path() / "outside/inner");
  fs::create_directory_symlink(m_dir.path() / "outside/inner", root() / "link");
  expect_outside("link/../escaped.txt");
}

TEST_F(WorkspaceTest, RefusesWritingThroughADanglingSymlinkOutside) {
  fs::create_symlink(m_dir.path() / "outside/new.txt", root() / "dangling");
  expect_outside("dangling", Access::write);
  expect_outside("dangling", Access::read);
}

TEST_F(WorkspaceTest, AllowsPathsThatDoNotExistYet) {
  EXPECT_EQ(resolved("new/dir/file.txt", Access::write), root() / "new/dir/file.txt");
}

TEST_F(WorkspaceTest, RefusesEmptyPathsAndNulBytes) {
  EXPECT_FALSE(m_ws.resolve("", Access::read).has_value());
  EXPECT_FALSE(m_ws.resolve(std::string_view("a\0b", 3), Access::read).has_value());
}

TEST_F(WorkspaceTest, RefusesWritingTheRootItself) {
  EXPECT_FALSE(m_ws.resolve(".", Access::write).has_value());
}

TEST_F(WorkspaceTest, SurvivesSymlinkLoops) {
  fs::create_symlink("b", root() / "a");
  fs::create_symlink("a", root() / "b");
  const auto result = m_ws.resolve("a/x", Access::read);
  ASSERT_FALSE(result.has_value());
  EXPECT_NE(result.error().message.find("symbolic links"), std::string::npos);
}

TEST_F(WorkspaceTest, RootGivenThroughASymlinkIsCanonicalised) {
  fs::create_directory_symlink(root(), m_dir.path() / "ws-alias");
  const auto ws = Workspace::open(m_dir.path() / "ws-alias");
  ASSERT_TRUE(ws.has_value());
  EXPECT_EQ(ws->root(), root());
  EXPECT_EQ(*ws->resolve((m_dir.path() / "ws-alias/f").string(), Access::read), root() / "f");
}

TEST(Workspace, OpeningAMissingRootFails) {
  const auto ws = Workspace::open("/nonexistent/ralph-ws");
  ASSERT_FALSE(ws.has_value());
  EXPECT_EQ(ws.error().kind, ErrorKind::io);
}

TEST_F(WorkspaceTest, RelativeNamesPathsFromTheRoot) {
  EXPECT_EQ(m_ws.relative(root() / "a/b.txt"), "a/b.txt");
  EXPECT_EQ(m_ws.relative(root()), ".");
}

} // namespace
} // namespace ralph::tools
