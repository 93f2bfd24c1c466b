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

class SearchFilesToolTest : public ::testing::Test {
protected:
  SearchFilesToolTest() {
    m_dir.write("src/main.cpp", "int main() {\n  // TODO: parse args\n  return 0;\n}\n");
    m_dir.write("src/util.h", "// TODO: document\n#pragma once\n");
    m_dir.write("README.md", "No todo here.\nTODO: write the readme\n");
    m_dir.write(".git/config", "TODO in git internals\n");
    m_dir.write("logo.bin", std::string("TODO\0binary", 11));
  }

  ToolResult search(std::string_view arguments) { return call(*m_tool, m_dir.path(), arguments); }

  TempDir m_dir;
  std::unique_ptr<Tool> m_tool = make_search_files_tool();
};

TEST_F(SearchFilesToolTest, ListsMatchingLinesWithPathAndLineNumber) {
  const ToolResult result = search(R"({"pattern": "TODO"})");
  EXPECT_FALSE(result.is_error);
  EXPECT_EQ(result.content, "README.md:2: TODO: write the readme\n"
                            "src/main.cpp:2:   // TODO: parse args\n"
                            "src/util.h:1: // TODO: document");
}

TEST_F(SearchFilesToolTest, FiltersFilesByGlob) {
  EXPECT_EQ(search(R"({"pattern": "TODO", "glob": "*.cpp"})").content,
            "src/main.cpp:2:   // TODO: parse args");
  EXPECT_EQ(search(R"({"pattern": "TODO", "glob": "*.{h,md}"})").content,
            "README.md:2: TODO: write the readme\nsrc/util.h:1: // TODO: document");
  EXPECT_EQ(search(R"({"pattern": "TODO", "glob": "src/*.h"})").content,
            "src/util.h:1: // TODO: document");
}

TEST_F(SearchFilesToolTest, SearchesOnlyTheGivenPath) {
  EXPECT_EQ(search(R"({"pattern": "return", "path": "src"})").content,
            "src/main.cpp:3:   return 0;");
  EXPECT_EQ(search(R"({"pattern": "^#", "path": "src/util.h"})").content,
            "src/util.h:2: #pragma once");
}

TEST_F(SearchFilesToolTest, SupportsCaseInsensitivePatterns) {
  EXPECT_EQ(search(R"({"pattern": "(?i)no todo"})").content, "README.md:1: No todo here.");
}

TEST_F(SearchFilesToolTest, InvalidRegexQuotesRe2sMessage) {
  const ToolResult result = search(R"({"pattern": "foo(bar"})");
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("invalid regular expression `foo(bar`: missing )"),
            std::string::npos)
      << result.content;
}

TEST_F(SearchFilesToolTest, CapsResultsWithANote) {
  std::string many;
  for (int i = 0; i < 50; ++i) {
    many += "hit\n";
  }
  m_dir.write("many.txt", many);
  const ToolResult result = search(R"({"pattern": "hit", "max_results": 10})");
  EXPECT_TRUE(result.truncated);
  EXPECT_NE(result.content.find("many.txt:10: hit\n[stopped at 10 matches"), std::string::npos)
      << result.content;
  EXPECT_EQ(result.content.find("many.txt:11:"), std::string::npos);
}

TEST_F(SearchFilesToolTest, CutsLongMatchingLines) {
  m_dir.write("long.txt", "needle" + std::string(1000, '.') + "\n");
  const ToolResult result = search(R"({"pattern": "needle", "path": "long.txt"})");
  EXPECT_EQ(result.content, "long.txt:1: needle" + std::string(294, '.') + " [...]");
}

TEST_F(SearchFilesToolTest, DoesNotFollowSymlinksOutOfTheWorkspace) {
  TempDir outside;
  outside.write("secret.txt", "TODO secret\n");
  fs::create_directory_symlink(outside.path(), m_dir.path() / "src/out");
  EXPECT_EQ(search(R"({"pattern": "secret"})").content.find("secret.txt"), std::string::npos);
  EXPECT_TRUE(search(R"({"pattern": "secret", "path": "src/out"})").is_error);
}

TEST_F(SearchFilesToolTest, SkipsHugeFilesWithANote) {
  m_dir.write("huge.log", std::string(5 * 1024 * 1024, 'x') + "\nTODO\n");
  EXPECT_EQ(search(R"({"pattern": "TODO", "path": "huge.log"})").content,
            "no matches for `TODO` in huge.log (0 files searched)\n"
            "[skipped 1 files over 4.0 MB; search them with shell]");
}

TEST_F(SearchFilesToolTest, NoMatchesSaysWhatWasSearched) {
  EXPECT_EQ(search(R"({"pattern": "zebra"})").content,
            "no matches for `zebra` in . (3 files searched)");
}

TEST_F(SearchFilesToolTest, BadArgumentsAreErrorResults) {
  EXPECT_TRUE(search("{}").is_error);
  EXPECT_TRUE(search(R"({"pattern": 5})").is_error);
  EXPECT_TRUE(search(R"({"pattern": "x", "max_results": 0})").is_error);
  EXPECT_TRUE(search(R"({"pattern": "x", "path": "missing"})").is_error);
}

} // namespace
} // namespace ralph::tools
