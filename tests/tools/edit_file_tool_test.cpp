#include "support/temp_dir.h"
#include "tool_harness.h"

#include "ralph/tools/builtin_tools.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::tools {
namespace {

using ralph::testing::TempDir;
using testing::call;

std::string edit_args(const std::string& path, const std::string& old_text,
                      const std::string& new_text, bool replace_all = false) {
  nlohmann::json args = {{"path", path}, {"old_text", old_text}, {"new_text", new_text}};
  if (replace_all) {
    args["replace_all"] = true;
  }
  return args.dump();
}

class EditFileToolTest : public ::testing::Test {
protected:
  ToolResult edit(const std::string& arguments) { return call(*m_tool, m_dir.path(), arguments); }

  TempDir m_dir;
  std::unique_ptr<Tool> m_tool = make_edit_file_tool();
};

TEST_F(EditFileToolTest, ReplacesAUniqueOccurrence) {
  m_dir.write("a.py", "def f():\n    return 1\n");
  const ToolResult result = edit(edit_args("a.py", "return 1", "return 2"));
  EXPECT_FALSE(result.is_error) << result.content;
  EXPECT_EQ(result.content, "replaced 1 occurrence in a.py at line 2");
  EXPECT_TRUE(result.wrote_files);
  EXPECT_EQ(m_dir.read("a.py"), "def f():\n    return 2\n");
}

TEST_F(EditFileToolTest, NotFoundLeavesTheFileUnchanged) {
  m_dir.write("a.txt", "alpha\nbeta\n");
  const ToolResult result = edit(edit_args("a.txt", "gamma", "delta"));
  EXPECT_TRUE(result.is_error);
  EXPECT_FALSE(result.wrote_files);
  EXPECT_NE(result.content.find("old_text not found in a.txt"), std::string::npos);
  EXPECT_EQ(m_dir.read("a.txt"), "alpha\nbeta\n");
}

TEST_F(EditFileToolTest, NotUniqueLeavesTheFileUnchangedAndNamesTheLines) {
  m_dir.write("a.txt", "x = 1\ny = 2\nx = 1\n");
  const ToolResult result = edit(edit_args("a.txt", "x = 1", "x = 3"));
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("old_text occurs 2 times in a.txt (lines 1, 3); add surrounding "
                                "context to make it unique or set replace_all"),
            std::string::npos)
      << result.content;
  EXPECT_EQ(m_dir.read("a.txt"), "x = 1\ny = 2\nx = 1\n");
}

TEST_F(EditFileToolTest, ReplaceAllReplacesEveryOccurrence) {
  m_dir.write("a.txt", "x = 1\ny = 2\nx = 1\n");
  const ToolResult result = edit(edit_args("a.txt", "x = 1", "x = 3", true));
  EXPECT_EQ(result.content, "replaced 2 occurrences in a.txt");
  EXPECT_EQ(m_dir.read("a.txt"), "x = 3\ny = 2\nx = 3\n");
}

TEST_F(EditFileToolTest, NewTextMayBeEmptyToDelete) {
  m_dir.write("a.txt", "keep\ndrop\n");
  EXPECT_FALSE(edit(edit_args("a.txt", "drop\n", "")).is_error);
  EXPECT_EQ(m_dir.read("a.txt"), "keep\n");
}

TEST_F(EditFileToolTest, EmptyOldTextIsRefused) {
  m_dir.write("a.txt", "text");
  const ToolResult result = edit(edit_args("a.txt", "", "new"));
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("`old_text` is empty"), std::string::npos);
  EXPECT_EQ(m_dir.read("a.txt"), "text");
}

TEST_F(EditFileToolTest, HintsWhenOnlyLineEndingsDiffer) {
  m_dir.write("win.txt", "first\r\nsecond\r\n");
  const ToolResult result = edit(edit_args("win.txt", "first\nsecond", "x"));
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("CRLF"), std::string::npos) << result.content;
  EXPECT_EQ(m_dir.read("win.txt"), "first\r\nsecond\r\n");
}

TEST_F(EditFileToolTest, HintsWhenOnlyWhitespaceDiffers) {
  m_dir.write("a.cpp", "int main() {\n\n  if (x) {\n    run();\n  }\n}\n");
  const ToolResult result = edit(edit_args("a.cpp", "if (x) {\n  run();\n}", "y"));
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("differs only in whitespace"), std::string::npos);
  EXPECT_NE(result.content.find("line 3"), std::string::npos) << result.content;
}

TEST_F(EditFileToolTest, MissingFileSuggestsWriteFile) {
  const ToolResult result = edit(edit_args("new.txt", "a", "b"));
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("use write_file"), std::string::npos);
}

TEST_F(EditFileToolTest, RefusesPathsOutsideTheWorkspace) {
  const ToolResult result = edit(edit_args("/etc/hostname", "a", "b"));
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("outside the workspace"), std::string::npos);
}

TEST_F(EditFileToolTest, WrongTypesAreErrorResults) {
  m_dir.write("a.txt", "a");
  EXPECT_TRUE(edit(R"({"path": "a.txt", "old_text": "a", "new_text": 5})").is_error);
  EXPECT_TRUE(
      edit(R"({"path": "a.txt", "old_text": "a", "new_text": "b", "replace_all": 2})").is_error);
  EXPECT_EQ(m_dir.read("a.txt"), "a");
}

} // namespace
} // namespace ralph::tools
