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

class WriteFileToolTest : public ::testing::Test {
protected:
  ToolResult write(std::string_view arguments) { return call(*m_tool, m_dir.path(), arguments); }

  TempDir m_dir;
  std::unique_ptr<Tool> m_tool = make_write_file_tool();
};

TEST_F(WriteFileToolTest, CreatesTheFileAndItsParentDirectories) {
  const ToolResult result = write(R"({"path": "a/b/c.txt", "content": "hello\n"})");
  EXPECT_FALSE(result.is_error) << result.content;
  EXPECT_EQ(result.content, "created a/b/c.txt (6 bytes)");
  EXPECT_TRUE(result.wrote_files);
  EXPECT_EQ(m_dir.read("a/b/c.txt"), "hello\n");
}

TEST_F(WriteFileToolTest, OverwritesAndKeepsPermissions) {
  const fs::path script = m_dir.write("run.sh", "old");
  fs::permissions(script, fs::perms::owner_all);
  const ToolResult result = write(R"({"path": "run.sh", "content": "#!/bin/sh\n"})");
  EXPECT_EQ(result.content, "overwrote run.sh (10 bytes)");
  EXPECT_EQ(m_dir.read("run.sh"), "#!/bin/sh\n");
  EXPECT_EQ(fs::status(script).permissions() & fs::perms::all, fs::perms::owner_all);
}

TEST_F(WriteFileToolTest, LeavesNoTemporaryFilesBehind) {
  write(R"({"path": "x.txt", "content": "1"})");
  write(R"({"path": "x.txt", "content": "2"})");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(m_dir.path())) {
    ++entries;
  }
  EXPECT_EQ(entries, 1u);
}

TEST_F(WriteFileToolTest, WritesThroughASymlinkInsideToItsTarget) {
  m_dir.write("real.txt", "old");
  fs::create_symlink("real.txt", m_dir.path() / "alias.txt");
  EXPECT_FALSE(write(R"({"path": "alias.txt", "content": "new"})").is_error);
  EXPECT_EQ(m_dir.read("real.txt"), "new");
  EXPECT_TRUE(fs::is_symlink(m_dir.path() / "alias.txt"));
}

TEST_F(WriteFileToolTest, RefusesADanglingSymlinkPointingOutside) {
  TempDir outside;
  fs::create_symlink(outside.path() / "planted.txt", m_dir.path() / "trap.txt");
  const ToolResult result = write(R"({"path": "trap.txt", "content": "x"})");
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("outside the workspace"), std::string::npos);
  EXPECT_FALSE(fs::exists(outside.path() / "planted.txt"));
}

TEST_F(WriteFileToolTest, RefusesPathsOutsideTheWorkspace) {
  EXPECT_TRUE(write(R"({"path": "../escape.txt", "content": "x"})").is_error);
  EXPECT_FALSE(fs::exists(m_dir.path().parent_path() / "escape.txt"));
}

TEST_F(WriteFileToolTest, RefusesADirectory) {
  fs::create_directories(m_dir.path() / "src");
  const ToolResult result = write(R"({"path": "src", "content": "x"})");
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("is a directory"), std::string::npos);
}

TEST_F(WriteFileToolTest, RefusesAParentThatIsAFile) {
  m_dir.write("file", "x");
  EXPECT_TRUE(write(R"({"path": "file/child.txt", "content": "x"})").is_error);
}

TEST_F(WriteFileToolTest, ContentIsRequired) {
  const ToolResult result = write(R"({"path": "a.txt"})");
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("`content` is required"), std::string::npos);
  EXPECT_FALSE(fs::exists(m_dir.path() / "a.txt"));
}

TEST_F(WriteFileToolTest, EmptyContentMakesAnEmptyFile) {
  EXPECT_FALSE(write(R"({"path": "empty", "content": ""})").is_error);
  EXPECT_TRUE(fs::is_empty(m_dir.path() / "empty"));
}

} // namespace
} // namespace ralph::tools
