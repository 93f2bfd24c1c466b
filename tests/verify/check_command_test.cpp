#include "verify/check_command.h"

#include <gtest/gtest.h>

namespace ralph::verify {
namespace {

std::vector<ShellToken> words(std::initializer_list<const char*> texts) {
  std::vector<ShellToken> out;
  for (const char* text : texts) {
    out.push_back({text, false});
  }
  return out;
}

TEST(CheckCommand, TokenizesQuotesEscapesAndOperators) {
  const auto tokens = tokenize_shell(R"(cd 'my dir' && FOO="a b" pytest -k "x\"y" a\ b 2>&1)");
  ASSERT_TRUE(tokens);
  const std::vector<ShellToken> expected = {{"cd", false},      {"my dir", false}, {"&&", true},
                                            {"FOO=a b", false}, {"pytest", false}, {"-k", false},
                                            {"x\"y", false},    {"a b", false},    {"2>&1", true}};
  EXPECT_EQ(*tokens, expected);
  const auto glued = tokenize_shell("make test;echo ok|tail>out");
  ASSERT_TRUE(glued);
  EXPECT_EQ(glued->size(), 9u);
  EXPECT_FALSE(tokenize_shell("echo 'open"));
  EXPECT_FALSE(tokenize_shell("pytest $(rm -rf x)"));
}

TEST(CheckCommand, CheckedTokensDropCdStepsAssignmentsAndStderrMerge) {
  EXPECT_EQ(*checked_tokens("cd a && cd b && CI=1 make check 2>&1"), words({"make", "check"}));
  EXPECT_EQ(*checked_tokens("make check"), words({"make", "check"}));
}

TEST(CheckCommand, OnlyRunsOfTheCommandItselfCount) {
  EXPECT_TRUE(runs_command("sh test.sh", "sh test.sh"));
  EXPECT_TRUE(runs_command("  sh   'test.sh' ", "sh test.sh"));
  EXPECT_TRUE(runs_command("cd /w && sh test.sh 2>&1", "sh test.sh"));
  EXPECT_TRUE(runs_command("make && ./run", "make && ./run"));
  EXPECT_FALSE(runs_command("echo 'would run: sh test.sh'", "sh test.sh"));
  EXPECT_FALSE(runs_command(R"(grep "sh test.sh" notes)", "sh test.sh"));
  EXPECT_FALSE(runs_command("sh test.sh || true", "sh test.sh"));
  EXPECT_FALSE(runs_command("sh test.sh | cat", "sh test.sh"));
  EXPECT_FALSE(runs_command("true; sh test.sh", "sh test.sh"));
  EXPECT_FALSE(runs_command("sh test.sh", ""));
}

TEST(CheckCommand, AShellRunningOneLineRunsThatLine) {
  // Codex reports every command as `/bin/bash -lc '…'`.
  EXPECT_TRUE(runs_command("/bin/bash -lc 'sh test.sh'", "sh test.sh"));
  EXPECT_TRUE(runs_command(R"(sh -c "cd app && sh test.sh")", "sh test.sh"));
  EXPECT_TRUE(matches_check_pattern("/bin/bash -lc 'make test -k'", "make test*"));
  EXPECT_FALSE(matches_check_pattern("/bin/bash -lc 'make test; true'", "make test*"));
  EXPECT_FALSE(runs_command("bash -lc 'sh test.sh' || true", "sh test.sh"));
  EXPECT_FALSE(runs_command("bash -x 'sh test.sh'", "sh test.sh"));
  EXPECT_EQ(inner_command_line("/bin/bash -lc 'make test'"), "make test");
  EXPECT_EQ(inner_command_line("make test | tail"), "make test | tail");
}

TEST(CheckCommand, PatternsMatchOneSimpleCommand) {
  EXPECT_TRUE(matches_check_pattern("pytest -q tests/", "pytest*"));
  EXPECT_TRUE(matches_check_pattern("cd app && python3 -m   pytest", "python3 -m  pytest*"));
  EXPECT_TRUE(matches_check_pattern("sh run_tests.sh", "sh *test*"));
  EXPECT_FALSE(matches_check_pattern("cat app.txt", "pytest*"));
  EXPECT_FALSE(matches_check_pattern("pytest | tail -3", "pytest*"));
  EXPECT_FALSE(matches_check_pattern("pytest; true", "pytest*"));
  EXPECT_FALSE(matches_check_pattern("pytest > log", "pytest*"));
  EXPECT_FALSE(matches_check_pattern("echo pytest", "pytest*"));
  EXPECT_TRUE(matches_check_pattern("cat app.txt", "*"));
  EXPECT_FALSE(matches_check_pattern("", "*"));
}

} // namespace
} // namespace ralph::verify
