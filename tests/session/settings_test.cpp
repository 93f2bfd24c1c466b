#include "support/temp_dir.h"

#include "ralph/session/settings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::session {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

// Each source over the one before: defaults < user file < workspace file < extra file <
// environment < overrides; the environment is the one given, not the process's.
TEST(Settings, EachSourceOverridesTheOneBelowIt) {
  TempDir dir;
  dir.write("home/.config/ralph/config.toml", "model = \"user/m\"\n[agent]\nmax_steps = 11\n"
                                              "[loop]\nmax_iterations = 4\n");
  dir.write("work/.ralph/config.toml", "[agent]\nmax_steps = 12\n[judge]\nmodel = \"w/j\"\n");
  const auto extra =
      dir.write("extra.toml", "[judge]\nmodel = \"extra/j\"\n[budget]\nmax_time = 60\n");
  Config defaults;
  defaults.loop.max_iterations = 9;
  defaults.verify.runs = 3;
  auto override =
      Setting::parse({.key = "budget.max_time", .value = "2m", .flag = "--time-budget"});
  ASSERT_TRUE(override);
  const Environment env =
      Environment::of({{"HOME", (dir.path() / "home").string()}, {"RALPH_JUDGE_MODEL", "env/j"}});
  const auto config = load_settings({.workspace = dir.path() / "work",
                                     .extra_file = extra,
                                     .overrides = {*override},
                                     .defaults = defaults},
                                    env);
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->verify.runs, 3) << "a default no file sets";
  EXPECT_EQ(config->model, "user/m");
  EXPECT_EQ(config->loop.max_iterations, 4) << "the user's file over the defaults";
  EXPECT_EQ(config->agent.max_steps, 12) << "the workspace's file over the user's";
  EXPECT_EQ(config->judge.model, "env/j") << "the environment over the files";
  EXPECT_EQ(config->budget.max_time, std::chrono::minutes(2)) << "overrides over everything";
}

TEST(Settings, AMistakeNamesItsFileAndLine) {
  TempDir dir;
  dir.write("work/.ralph/config.toml", "[agent]\n\nmax_steps = \"many\"\n");
  const auto config = load_settings({.workspace = dir.path() / "work"}, Environment::of({}));
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().kind, ErrorKind::config);
  EXPECT_THAT(config.error().message, HasSubstr("config.toml:3"));
}

// A mistyped RALPH_* variable fails as a mistyped key in a file does, with the name it was
// likely meant to be; the few RALPH_* variables that are not settings pass.
TEST(Settings, ARalphVariableThatNamesNoSettingIsAnError) {
  TempDir dir;
  const auto loaded = [&dir](std::string name) {
    return load_settings({.workspace = dir.path()}, Environment::of({{std::move(name), "1"}}));
  };
  const auto section_left_out = loaded("RALPH_MAX_ITERATIONS");
  ASSERT_FALSE(section_left_out);
  EXPECT_EQ(section_left_out.error().kind, ErrorKind::config);
  EXPECT_EQ(section_left_out.error().message,
            "environment variable RALPH_MAX_ITERATIONS: not a setting of ralph; did you mean "
            "RALPH_LOOP_MAX_ITERATIONS?");
  const auto typo = loaded("RALPH_LOOP_MAX_ITERATOINS");
  ASSERT_FALSE(typo);
  EXPECT_THAT(typo.error().message, HasSubstr("did you mean RALPH_LOOP_MAX_ITERATIONS?"));
  const auto both = loaded("RALPH_MAX_TOKENS");
  ASSERT_FALSE(both);
  EXPECT_THAT(both.error().message, HasSubstr("RALPH_AGENT_MAX_TOKENS"));
  EXPECT_THAT(both.error().message, HasSubstr("RALPH_BUDGET_MAX_TOKENS"));
  const auto nothing_near = loaded("RALPH_FROBNICATE");
  ASSERT_FALSE(nothing_near);
  EXPECT_THAT(nothing_near.error().message, HasSubstr("docs/reference/configuration.md"));

  for (const char* accepted : {"RALPH_LOOP_MAX_ITERATIONS", "RALPH_MAX_STEPS", "RALPH_QUEUE_URL",
                               "RALPH_REQUIRE_AGENT_CLIS", "RALPH_MCP_TESTS_DIR",
                               "RALPH_REQUIRE_POSTGRES", "RALPH_PG_FSYNC", "NOT_RALPH_AT_ALL"}) {
    const auto config = loaded(accepted);
    EXPECT_TRUE(config) << accepted << ": " << config.error().message;
  }
}

// A setting is parsed once: applying it again reads no text, so its value is the one it had.
TEST(Settings, ASettingParsedOnceAppliesToAnyConfiguration) {
  const auto tokens = Setting::parse({.key = "budget.max_tokens", .value = "20k", .flag = "x"});
  ASSERT_TRUE(tokens);
  Config a;
  Config b;
  b.budget.max_tokens = 5;
  tokens->apply(a);
  tokens->apply(b);
  EXPECT_EQ(a.budget.max_tokens, 20000);
  EXPECT_EQ(b.budget.max_tokens, 20000);
  const auto bad =
      Setting::parse({.key = "budget.max_tokens", .value = "lots", .flag = "--token-budget"});
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("--token-budget: budget.max_tokens: expected"));
  const auto checked = Setting::check({.key = "loop.max_iterations", .value = "0"});
  ASSERT_FALSE(checked);
  EXPECT_THAT(checked.error(), HasSubstr("expected an integer from 1"));
  // A repeated list flag: the first occurrence replaces the configured list, the others append.
  const auto first = parse_settings(
      {{.key = "verify.commands", .value = "a", .flag = "--verify-cmd"},
       {.key = "verify.commands", .value = "b", .flag = "--verify-cmd", .append = true}});
  ASSERT_TRUE(first);
  Config c;
  c.verify.commands = {"configured"};
  apply_settings(c, *first);
  EXPECT_EQ(c.verify.commands, (std::vector<std::string>{"a", "b"}));
}

TEST(Settings, ARecordedConfigurationHasTheOverridesOverIt) {
  store::SessionRow row;
  row.id = "s";
  Config ran;
  ran.loop.max_iterations = 2;
  ran.verify.commands = {"make test"};
  row.config_json = config_to_json(ran);
  const auto raised = Setting::parse({.key = "loop.max_iterations", .value = "5", .flag = "-"});
  ASSERT_TRUE(raised);
  const auto config = recorded_settings(row, {*raised});
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->loop.max_iterations, 5);
  EXPECT_EQ(config->verify.commands, (std::vector<std::string>{"make test"}));
}

TEST(Settings, TheUserFileFollowsXdgThenHome) {
  EXPECT_EQ(user_config_file(Environment::of({{"XDG_CONFIG_HOME", "/x"}, {"HOME", "/h"}})),
            std::filesystem::path("/x/ralph/config.toml"));
  EXPECT_EQ(user_config_file(Environment::of({{"HOME", "/h"}})),
            std::filesystem::path("/h/.config/ralph/config.toml"));
  EXPECT_TRUE(user_config_file(Environment::of({})).empty());
}

} // namespace
} // namespace ralph::session
