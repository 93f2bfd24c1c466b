#include "support/temp_dir.h"
#include "tool_harness.h"

#include "ralph/tools/builtin_tools.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace ralph::tools {
namespace {

namespace fs = std::filesystem;
using ralph::testing::TempDir;
using testing::call;

class ListDirToolTest : public ::testing::Test {
protected:
  ListDirToolTest() {
    m_dir.write("b.txt", "");
    m_dir.write("a.txt", "");
    m_dir.write("src/main.cpp", "");
    m_dir.write("src/deep/x.h", "");
    m_dir.write(".git/HEAD", "");
    m_dir.write(".ralph/ralph.db", "");
    m_dir.write(".env", "");
  }

  ToolResult list(std::string_view arguments) { return call(*m_tool, m_dir.path(), arguments); }

  TempDir m_dir;
  std::unique_ptr<Tool> m_tool = make_list_dir_tool();
};

TEST_F(ListDirToolTest, ListsSortedWithDirectoriesMarkedAndGitSkipped) {
  const ToolResult result = list("{}");
  EXPECT_FALSE(result.is_error);
  EXPECT_EQ(result.content, ".env\na.txt\nb.txt\nsrc/");
}

TEST_F(ListDirToolTest, DescendsToTheRequestedDepth) {
  EXPECT_EQ(list(R"({"depth": 2})").content, ".env\na.txt\nb.txt\nsrc/\nsrc/deep/\nsrc/main.cpp");
  EXPECT_EQ(list(R"({"depth": 5})").content,
            ".env\na.txt\nb.txt\nsrc/\nsrc/deep/\nsrc/deep/x.h\nsrc/main.cpp");
}

TEST_F(ListDirToolTest, ListsASubdirectoryWithWorkspaceRelativePaths) {
  EXPECT_EQ(list(R"({"path": "src"})").content, "src/deep/\nsrc/main.cpp");
}

TEST_F(ListDirToolTest, ShowsSymlinksWithoutFollowingThem) {
  fs::create_directory_symlink("/", m_dir.path() / "src/root-link");
  EXPECT_EQ(list(R"({"path": "src", "depth": 3})").content,
            "src/deep/\nsrc/deep/x.h\nsrc/main.cpp\nsrc/root-link -> /");
}

TEST_F(ListDirToolTest, CapsTheNumberOfEntries) {
  for (int i = 0; i < 1005; ++i) {
    m_dir.write("many/f" + std::to_string(10000 + i), "");
  }
  const ToolResult result = list(R"({"path": "many"})");
  EXPECT_TRUE(result.truncated);
  EXPECT_NE(result.content.find("[stopped after 1000 entries"), std::string::npos);
  EXPECT_NE(result.content.find("many/f10999\n"), std::string::npos);
  EXPECT_EQ(result.content.find("many/f11000"), std::string::npos);
}

TEST_F(ListDirToolTest, EmptyDirectorySaysSo) {
  fs::create_directories(m_dir.path() / "empty");
  EXPECT_EQ(list(R"({"path": "empty"})").content, "(empty is empty)");
}

TEST_F(ListDirToolTest, RefusesFilesAndMissingPaths) {
  EXPECT_NE(list(R"({"path": "a.txt"})").content.find("not a directory; use read_file"),
            std::string::npos);
  EXPECT_TRUE(list(R"({"path": "nope"})").is_error);
}

TEST_F(ListDirToolTest, RefusesPathsOutsideTheWorkspace) {
  const ToolResult result = list(R"({"path": ".."})");
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("outside the workspace"), std::string::npos);
}

TEST_F(ListDirToolTest, BadDepthIsAnErrorResult) {
  EXPECT_TRUE(list(R"({"depth": 0})").is_error);
  EXPECT_TRUE(list(R"({"depth": "deep"})").is_error);
}

} // namespace
} // namespace ralph::tools
