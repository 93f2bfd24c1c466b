#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/core/message.h"
#include "ralph/core/outcome.h"
#include "ralph/core/settings.h"
#include "ralph/core/status.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

namespace ralph {
namespace {

using ::testing::HasSubstr;

// Every value of an enum is in its table once, under a name that parses back to it.
template <typename E, std::size_t N>
void expect_complete(const EnumName<E> (&names)[N], int count) {
  std::set<std::string> seen;
  for (int i = 0; i < count; ++i) {
    const auto value = static_cast<E>(i);
    const std::string name = name_of(names, value);
    EXPECT_TRUE(seen.insert(name).second) << name;
    EXPECT_EQ(value_of(names, name), value) << name;
  }
  EXPECT_EQ(N, static_cast<std::size_t>(count));
}

TEST(EnumNames, EveryTableNamesEveryValueOnce) {
  expect_complete(k_feedback_mode_names, 2);
  expect_complete(k_trigger_mode_names, 4);
  expect_complete(k_error_policy_names, 2);
  expect_complete(k_match_level_names, 4);
  expect_complete(k_document_mode_names, 3);
  expect_complete(k_budget_kind_names, 6);
  expect_complete(k_outcome_names, 3);
  expect_complete(k_role_names, 4);
  expect_complete(k_error_kind_names, 12);
  expect_complete(k_status_names, 7);
  EXPECT_FALSE(value_of(k_feedback_mode_names, "Continue"));
}

TEST(TypedSettings, ChoicesDurationsAndSizesArriveTyped) {
  Config config;
  ASSERT_TRUE(apply_config_toml(config, R"(
[loop]
feedback = "continue"
trigger = "keywords"
[judge]
policy = "fail_closed"
timeout = 45
[qa]
match_level = "casefold"
[rlm]
memory_mb = 64
time_limit = 5
[budget]
max_time = 600
)",
                                "c.toml"));
  EXPECT_EQ(config.loop.feedback, FeedbackMode::continuation);
  EXPECT_EQ(config.loop.trigger.mode, TriggerMode::keywords);
  EXPECT_EQ(config.judge.policy, ErrorPolicy::fail_closed);
  EXPECT_EQ(config.judge.timeout, std::chrono::seconds(45));
  EXPECT_EQ(config.qa.match_level, MatchLevel::casefold);
  EXPECT_EQ(config.rlm.memory_bytes, std::size_t{64} << 20U);
  EXPECT_EQ(config.rlm.time_limit, std::chrono::seconds(5));
  EXPECT_EQ(config.budget.max_time, std::chrono::minutes(10));
}

TEST(TypedSettings, RecordRoundTripKeepsTheTypedValues) {
  Config config;
  config.loop.feedback = FeedbackMode::continuation;
  config.verify.command_policy = ErrorPolicy::fail_open;
  config.document.mode = DocumentMode::qa;
  config.rlm.memory_bytes = std::size_t{32} << 20U;
  config.http.idle_timeout = std::chrono::seconds(7);
  Config copy;
  ASSERT_TRUE(apply_config_json(copy, config_to_json(config), "session"));
  EXPECT_EQ(copy.loop.feedback, FeedbackMode::continuation);
  EXPECT_EQ(copy.verify.command_policy, ErrorPolicy::fail_open);
  EXPECT_EQ(copy.document.mode, DocumentMode::qa);
  EXPECT_EQ(copy.rlm.memory_bytes, std::size_t{32} << 20U);
  EXPECT_EQ(copy.http.idle_timeout, std::chrono::seconds(7));
  EXPECT_THAT(config_to_json(config), HasSubstr("\"rlm.memory_mb\":32"));
  EXPECT_THAT(config_to_json(config), HasSubstr("\"loop.feedback\":\"continue\""));
}

TEST(TypedSettings, UnknownChoiceFromAnyFrontEndNamesTheKeyAndTheChoices) {
  Config config;
  const auto from_flag = set_config_value(config, "judge.policy", "fail_soft", "--judge-policy");
  ASSERT_FALSE(from_flag);
  EXPECT_THAT(from_flag.error().message,
              HasSubstr("judge.policy: expected one of fail_open, fail_closed, got \"fail_soft\""));
  const auto from_record = apply_config_json(config, R"({"qa.match_level": "loose"})", "session 1");
  ASSERT_FALSE(from_record);
  EXPECT_THAT(from_record.error().message, HasSubstr("session 1: qa.match_level: expected one of "
                                                     "exact, whitespace, typographic, casefold"));
}

TEST(TypedSettings, TheAgentsOwnModelAsJudgeIsAFlagNotAName) {
  Config config;
  ASSERT_TRUE(set_config_value(config, "judge.model", "agent", "--judge"));
  EXPECT_TRUE(config.judge.on_agent_model);
  EXPECT_TRUE(config.judge.model.empty());
  EXPECT_THAT(config_to_json(config), HasSubstr("\"judge.model\":\"agent\""));
  ASSERT_TRUE(set_config_value(config, "judge.model", "anthropic/claude-x", "--judge"));
  EXPECT_FALSE(config.judge.on_agent_model);
  EXPECT_EQ(config.judge.model, "anthropic/claude-x");
}

TEST(TypedSettings, PricesAreReadTheSameFromFilesAndRecords) {
  Config config;
  const auto from_record = apply_config_json(
      config, R"({"prices": {"openai/x": {"input": 1, "output": "cheap"}}})", "session 1");
  ASSERT_FALSE(from_record);
  EXPECT_THAT(from_record.error().message, HasSubstr("prices"));
  const auto unknown_field =
      apply_config_toml(config, "[prices.\"openai/x\"]\ninptu = 1\n", "c.toml");
  ASSERT_FALSE(unknown_field);
  EXPECT_THAT(unknown_field.error().message, HasSubstr("c.toml:1: prices.\"openai/x\".inptu"));
  ASSERT_TRUE(apply_config_toml(config, "[prices.\"openai/x\"]\ninput = 1\n", "a.toml"));
  ASSERT_TRUE(apply_config_toml(config, "[prices.\"openai/y\"]\noutput = 2\n", "b.toml"));
  EXPECT_EQ(config.prices.size(), 2U) << "a later file adds prices, it does not replace them";
  const auto from_variable = set_config_value(config, "prices", "{}", "environment variable");
  EXPECT_FALSE(from_variable);
}

} // namespace
} // namespace ralph
