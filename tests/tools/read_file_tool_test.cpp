#include "support/temp_dir.h"
#include "tool_harness.h"

#include "ralph/tools/builtin_tools.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sys/stat.h>

namespace ralph::tools {
namespace {

using ralph::testing::TempDir;
using testing::call;

class ReadFileToolTest : public ::testing::Test {
protected:
  ToolResult read(std::string_view arguments) { return call(*m_tool, m_dir.path(), arguments); }

  TempDir m_dir;
  std::unique_ptr<Tool> m_tool = make_read_file_tool();
};

std::string numbered_lines(int count) {
  std::string text;
  for (int i = 1; i <= count; ++i) {
    text += "line " + std::to_string(i) + "\n";
  }
  return text;
}

TEST_F(ReadFileToolTest, ReturnsTheWholeFileExactly) {
  m_dir.write("src/a.txt", "one\r\ntwo\n  three");
  const ToolResult result = read(R"({"path": "src/a.txt"})");
  EXPECT_FALSE(result.is_error);
  EXPECT_FALSE(result.truncated);
  EXPECT_EQ(result.content, "one\r\ntwo\n  three");
}

TEST_F(ReadFileToolTest, ReadsALineRangeAndSaysWhereToContinue) {
  m_dir.write("a.txt", numbered_lines(10));
  const ToolResult result = read(R"({"path": "a.txt", "offset": 3, "limit": 2})");
  EXPECT_TRUE(result.truncated);
  EXPECT_EQ(result.content, "line 3\nline 4\n[lines 3-4 of a.txt; the file continues at offset=5]");
}

TEST_F(ReadFileToolTest, SaysWhenTheRangeReachesTheEnd) {
  m_dir.write("a.txt", numbered_lines(5));
  EXPECT_EQ(read(R"({"path": "a.txt", "offset": 4})").content,
            "line 4\nline 5\n[lines 4-5 of a.txt; the file ends here]");
}

TEST_F(ReadFileToolTest, OffsetPastTheEndIsAnError) {
  m_dir.write("a.txt", numbered_lines(5));
  const ToolResult result = read(R"({"path": "a.txt", "offset": 9})");
  EXPECT_TRUE(result.is_error);
  EXPECT_EQ(result.content, "offset 9 is past the end of a.txt, which has 5 lines");
}

TEST_F(ReadFileToolTest, CapsLargeFilesAndGivesTheNextOffset) {
  m_dir.write("big.txt", numbered_lines(30000)); // about 300 KB
  const ToolResult result = read(R"({"path": "big.txt"})");
  EXPECT_FALSE(result.is_error);
  EXPECT_TRUE(result.truncated);
  EXPECT_LE(result.content.size(), 101u * 1024);
  // Whole lines only, and the note continues right after the last one shown.
  const auto note = result.content.rfind("\n[lines 1-");
  ASSERT_NE(note, std::string::npos);
  const auto last_line_start = result.content.rfind('\n', note - 1) + 1;
  const int last = std::stoi(result.content.substr(last_line_start + 5));
  EXPECT_EQ(result.content.substr(note),
            "\n[lines 1-" + std::to_string(last) +
                " of big.txt; output capped at 100.0 KB; read more with offset=" +
                std::to_string(last + 1) + "]");
}

TEST_F(ReadFileToolTest, CutsASingleLineLongerThanTheCap) {
  m_dir.write("min.js", std::string(300 * 1024, 'x') + "\nnext\n");
  const ToolResult result = read(R"({"path": "min.js"})");
  EXPECT_TRUE(result.truncated);
  EXPECT_EQ(result.content.substr(0, 100 * 1024), std::string(100 * 1024, 'x'));
  EXPECT_NE(result.content.find("line 1 of min.js is longer than 100.0 KB and was cut"),
            std::string::npos);
}

TEST_F(ReadFileToolTest, RefusesDirectories) {
  std::filesystem::create_directories(m_dir.path() / "src");
  const ToolResult result = read(R"({"path": "src"})");
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("src is a directory; use list_dir"), std::string::npos);
}

TEST_F(ReadFileToolTest, RefusesBinaryFiles) {
  m_dir.write("image.png", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
  const ToolResult result = read(R"({"path": "image.png"})");
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("binary"), std::string::npos);
}

TEST_F(ReadFileToolTest, RefusesFifosWithoutBlocking) {
  ASSERT_EQ(::mkfifo((m_dir.path() / "pipe").c_str(), 0600), 0);
  const ToolResult result = read(R"({"path": "pipe"})");
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("not a regular file"), std::string::npos);
}

TEST_F(ReadFileToolTest, ReplacesInvalidUtf8) {
  m_dir.write("latin1.txt", "caf\xE9\n");
  EXPECT_EQ(read(R"({"path": "latin1.txt"})").content, "caf\xEF\xBF\xBD\n");
}

TEST_F(ReadFileToolTest, EmptyFileSaysSo) {
  m_dir.write("empty.txt", "");
  EXPECT_EQ(read(R"({"path": "empty.txt"})").content, "(empty.txt is empty)");
}

TEST_F(ReadFileToolTest, MissingFileSuggestsHowToFindIt) {
  const ToolResult result = read(R"({"path": "nope.txt"})");
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("nope.txt does not exist"), std::string::npos);
}

TEST_F(ReadFileToolTest, RefusesPathsOutsideTheWorkspace) {
  const ToolResult result = read(R"({"path": "../../etc/passwd"})");
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("outside the workspace"), std::string::npos);
}

TEST_F(ReadFileToolTest, BadArgumentsAreErrorResults) {
  EXPECT_TRUE(read("not json").is_error);
  EXPECT_TRUE(read(R"({"path": "a.txt", "offset": 0})").is_error);
  EXPECT_TRUE(read(R"({"path": "a.txt", "limit": "many"})").is_error);
  EXPECT_TRUE(read(R"({"file": "a.txt"})").is_error);
}

} // namespace
} // namespace ralph::tools
