// The settings table: every configuration key with what it does, and the flags, goals-file keys,
// /budget names and variables that set it.
#include "ralph/core/config.h"
#include "ralph/core/setting_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

namespace ralph {
namespace {

TEST(SettingNames, EveryKeyOfTheKeyTableSaysWhatItDoes) {
  // describe_config_keys walks the key table itself: one line per key.
  ASSERT_EQ(setting_names().size(), describe_config_keys().size());
  std::set<std::string_view> keys;
  for (const SettingNames& names : setting_names()) {
    EXPECT_TRUE(keys.insert(names.key).second) << names.key << " twice";
    EXPECT_FALSE(config_key_expects(names.key).empty()) << names.key;
    EXPECT_FALSE(names.help.empty()) << names.key << " has no help line";
    EXPECT_EQ(names.help.find('\n'), std::string_view::npos) << names.key;
    EXPECT_EQ(find_setting(names.key), &names);
  }
  EXPECT_EQ(find_setting("agent.max_stepz"), nullptr);
}

TEST(SettingNames, EveryFlagSetsARealKeyAndItsFixedValuePassesThatKeysCheck) {
  for (const SettingNames& names : setting_names()) {
    for (const SettingFlag& flag : names.flags) {
      const std::string name(flag_name(flag));
      EXPECT_EQ(flag.key, names.key) << name;
      EXPECT_TRUE(name.starts_with("--")) << name;
      EXPECT_FALSE(flag_help(flag).empty()) << name;
      switch (flag.form) {
      case FlagForm::fixed:
        EXPECT_TRUE(flag.value_name.empty()) << name;
        EXPECT_EQ(check_config_text(flag.key, flag.fixed), std::nullopt) << name;
        break;
      case FlagForm::optional:
        EXPECT_FALSE(flag.value_name.empty()) << name;
        EXPECT_EQ(check_config_text(flag.key, flag.fixed), std::nullopt) << name;
        break;
      case FlagForm::list_item:
        EXPECT_THAT(config_key_expects(flag.key),
                    ::testing::MatchesRegex("a list of (non-empty )?strings"))
            << name;
        EXPECT_FALSE(flag.value_name.empty()) << name;
        EXPECT_TRUE(flag.fixed.empty()) << name;
        break;
      case FlagForm::value:
        EXPECT_THAT(config_key_expects(flag.key), ::testing::Not(::testing::HasSubstr("list of")))
            << name;
        EXPECT_FALSE(flag.value_name.empty()) << name;
        EXPECT_TRUE(flag.fixed.empty()) << name;
        break;
      }
      // A command asks for a flag by name, key and form: no two rows may answer the same.
      EXPECT_EQ(find_flag(name, flag.key, flag.form), &flag) << name;
    }
  }
}

TEST(SettingNames, OneFlagNameForTwoKeysGivesTheRowTheCommandAsksFor) {
  const SettingFlag* agent = find_flag("--max-steps", "agent.max_steps");
  const SettingFlag* exploration = find_flag("--max-steps", "rlm.max_steps");
  ASSERT_NE(agent, nullptr);
  ASSERT_NE(exploration, nullptr);
  EXPECT_EQ(agent->key, "agent.max_steps");
  EXPECT_EQ(exploration->key, "rlm.max_steps");
  EXPECT_EQ(exploration->commands, "qa, task");
  EXPECT_EQ(find_flag("--max-steps"), nullptr) << "a name of two keys needs its key";
  EXPECT_EQ(find_flag("--judge", "judge.model"), nullptr) << "a key in two forms needs its form";
  const SettingFlag* judge = find_flag("--judge", "judge.model", FlagForm::optional);
  ASSERT_NE(judge, nullptr);
  EXPECT_EQ(judge->fixed, "agent");
  EXPECT_EQ(find_flag("--model"), find_flag("--model", "model", FlagForm::value));
  EXPECT_EQ(flag_name(*find_flag("--model")), "--model");
  EXPECT_EQ(find_flag("--modle"), nullptr);
}

TEST(SettingNames, FlagsSharingANameSayWhereEachHoldsButTheOneRunTakes) {
  std::map<std::string_view, int> usual;
  std::map<std::string_view, std::set<std::string_view>> places;
  for (const SettingNames& names : setting_names()) {
    for (const SettingFlag& flag : names.flags) {
      usual[flag_name(flag)] += flag.commands.empty() ? 1 : 0;
      EXPECT_TRUE(places[flag_name(flag)].insert(flag.commands).second)
          << flag_name(flag) << " holds twice in " << flag.commands;
    }
  }
  for (const auto& [name, count] : usual) {
    EXPECT_LE(count, 1) << name << " has two rows for `ralph run`";
  }
}

TEST(SettingNames, TheGoalKeysAreTheTwentyFiveOfTheGoalsFile) {
  const std::map<std::string, std::string> expected = {
      {"model", "model"},
      {"base_url", "base_url"},
      {"max_steps", "agent.max_steps"},
      {"max_tokens", "agent.max_tokens"},
      {"temperature", "agent.temperature"},
      {"agent", "agent.cli"},
      {"agent_model", "agent.model"},
      {"agent_args", "agent.args"},
      {"agent_cmd", "agent.command"},
      {"agent_timeout", "agent.timeout"},
      {"max_iterations", "loop.max_iterations"},
      {"token_budget", "budget.max_tokens"},
      {"cost_budget", "budget.max_cost_usd"},
      {"time_budget", "budget.max_time"},
      {"verify", "verify.commands"},
      {"verify_exec", "verify.exec"},
      {"judge", "judge.model"},
      {"judge_base_url", "judge.base_url"},
      {"protect", "verify.protect"},
      {"verifier_first", "evidence.enabled"},
      {"marker", "evidence.marker"},
      {"feedback", "loop.feedback"},
      {"trigger", "loop.trigger"},
      {"must_match", "checks.must_match"},
      {"must_not_match", "checks.must_not_match"},
  };
  std::map<std::string, std::string> found;
  for (const std::string& name : goal_key_names()) {
    const SettingNames* names = find_goal_key(name);
    ASSERT_NE(names, nullptr) << name;
    EXPECT_TRUE(found.emplace(name, std::string(names->key)).second) << name << " twice";
  }
  EXPECT_EQ(found, expected);
  EXPECT_EQ(find_goal_key("max_iteration"), nullptr);
  EXPECT_EQ(find_goal_key(""), nullptr);
}

TEST(SettingNames, TheBudgetNamesAreTheFiveOfChat) {
  const std::map<std::string, std::string> expected = {{"iterations", "loop.max_iterations"},
                                                       {"steps", "agent.max_steps"},
                                                       {"tokens", "budget.max_tokens"},
                                                       {"cost", "budget.max_cost_usd"},
                                                       {"time", "budget.max_time"}};
  std::map<std::string, std::string> found;
  for (const std::string& name : budget_names()) {
    const SettingNames* names = find_budget_name(name);
    ASSERT_NE(names, nullptr) << name;
    EXPECT_TRUE(found.emplace(name, std::string(names->key)).second) << name << " twice";
  }
  EXPECT_EQ(found, expected);
  EXPECT_EQ(find_budget_name("budget"), nullptr);
}

TEST(SettingNames, VariablesAreTheKeyInUpperCaseAndAnAliasIsNamedOnItsKey) {
  EXPECT_EQ(env_variable("agent.max_steps"), "RALPH_AGENT_MAX_STEPS");
  EXPECT_EQ(env_variable("model"), "RALPH_MODEL");
  EXPECT_EQ(find_setting("agent.max_steps")->env_alias, "RALPH_MAX_STEPS");
  for (const SettingNames& names : setting_names()) {
    if (!names.env_alias.empty()) {
      EXPECT_TRUE(names.env_alias.starts_with("RALPH_")) << names.key;
      EXPECT_NE(names.env_alias, env_variable(names.key)) << names.key;
    }
  }
}

} // namespace
} // namespace ralph
