#include "cli/slash_command.h"

#include "ralph/core/setting_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::cli {
namespace {

using ::testing::HasSubstr;

SlashCommand parsed(std::string_view line) {
  auto command = parse_slash_command(line);
  EXPECT_TRUE(command.has_value()) << command.error().message;
  EXPECT_TRUE(command.has_value() && command->has_value()) << line;
  return command && *command ? **command : SlashCommand{};
}

std::string problem(std::string_view line) {
  auto command = parse_slash_command(line);
  EXPECT_FALSE(command.has_value()) << line;
  return command ? std::string() : command.error().message;
}

TEST(SlashCommand, ACommandTakesTheRestOfTheLineTrimmed) {
  const SlashCommand goal = parsed("  /goal   make the tests pass  ");
  EXPECT_EQ(goal.verb, SlashVerb::goal);
  EXPECT_EQ(goal.argument, "make the tests pass");
  EXPECT_EQ(parsed("/verify make check && make lint").argument, "make check && make lint");
  EXPECT_EQ(parsed("/status").verb, SlashVerb::status);
  EXPECT_EQ(parsed("/budget").argument, "");
}

TEST(SlashCommand, TextIsNotACommandAndDoubleSlashSaysASlash) {
  EXPECT_FALSE(*parse_slash_command("hello /goal"));
  EXPECT_FALSE(*parse_slash_command("//goal is a word"));
  EXPECT_EQ(chat_text("//goal is a word"), "/goal is a word");
  EXPECT_EQ(chat_text("  hi  "), "hi");
}

TEST(SlashCommand, MistakesAreNamedWithTheClosestCommand) {
  EXPECT_EQ(problem("/stauts"),
            "unknown command /stauts; did you mean /status? (/help lists them)");
  EXPECT_EQ(problem("/xyzzy"), "unknown command /xyzzy (/help lists them)");
  EXPECT_EQ(problem("/goal"), "/goal needs its argument: /goal TEXT");
  EXPECT_EQ(problem("/pause now"), "/pause takes no argument");
}

TEST(SlashCommand, HelpListsEveryCommand) {
  const std::string help = slash_help();
  for (const auto& [_, name] : k_slash_verb_names) {
    EXPECT_THAT(help, HasSubstr(std::string("/") + name)) << name;
  }
}

TEST(SlashCommand, BudgetChangesAreCheckedLikeTheConfiguration) {
  const auto changes = parse_budget_changes("iterations=5 tokens 200k time=30m cost=2 steps=9");
  ASSERT_TRUE(changes.has_value()) << changes.error().message;
  ASSERT_EQ(changes->size(), 5U);
  EXPECT_EQ((*changes)[0].key, "loop.max_iterations");
  EXPECT_EQ((*changes)[1].key, "budget.max_tokens");
  EXPECT_EQ((*changes)[1].value, "200k");
  EXPECT_EQ(budget_name("budget.max_time"), "time");
  EXPECT_THAT(parse_budget_changes("iteratons=5").error().message,
              HasSubstr("unknown budget 'iteratons'; did you mean 'iterations'?"));
  EXPECT_THAT(parse_budget_changes("time=soon").error().message, HasSubstr("/budget time=soon:"));
  EXPECT_THAT(parse_budget_changes("tokens").error().message, HasSubstr("tokens needs a value"));
}

TEST(SlashCommand, TheHelpAndTheMistakesNameEveryBudgetOfTheSettingsTable) {
  const std::string mistake = parse_budget_changes("budgets=1").error().message;
  for (const std::string& name : budget_names()) {
    EXPECT_THAT(slash_help(), HasSubstr(name));
    EXPECT_THAT(mistake, HasSubstr(name));
    const auto change = parse_budget_changes(name + "=1");
    ASSERT_TRUE(change.has_value()) << change.error().message;
    EXPECT_EQ(budget_name(change->front().key), name);
  }
  EXPECT_EQ(budget_name("loop.feedback"), "loop.feedback") << "a key without a budget name";
}

} // namespace
} // namespace ralph::cli
