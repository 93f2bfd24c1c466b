#include "support/temp_dir.h"

#include "ralph/core/config.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ralph {
namespace {

using ::testing::HasSubstr;

TEST(ConfigToml, SetsNestedKeys) {
  Config config;
  const auto applied = apply_config_toml(config, R"(
model = "anthropic/claude-sonnet-4-5"
[agent]
max_steps = 7
temperature = 0      # an integer where a number is expected is fine
stream = false
[tools]
shell_timeout = 5
[loop]
enabled = true
max_iterations = 9
)",
                                         "cfg.toml");
  ASSERT_TRUE(applied) << applied.error().message;
  EXPECT_EQ(config.model, "anthropic/claude-sonnet-4-5");
  EXPECT_EQ(config.agent.max_steps, 7);
  EXPECT_EQ(config.agent.temperature, 0.0);
  EXPECT_FALSE(config.agent.stream);
  EXPECT_EQ(config.tools.shell_timeout, std::chrono::seconds(5));
  EXPECT_TRUE(config.loop.enabled);
  EXPECT_EQ(config.loop.max_iterations, 9);
}

TEST(ConfigToml, DottedKeysWorkLikeSections) {
  Config config;
  ASSERT_TRUE(apply_config_toml(config, "agent.max_steps = 3\n", "cfg.toml"));
  EXPECT_EQ(config.agent.max_steps, 3);
}

TEST(ConfigToml, UnknownKeyNamesFileLineKeyAndSuggestion) {
  Config config;
  const auto applied = apply_config_toml(config, "model = \"x/y\"\n[agent]\nmax_stepz = 3\n",
                                         "/ws/.ralph/config.toml");
  ASSERT_FALSE(applied);
  EXPECT_EQ(applied.error().kind, ErrorKind::config);
  EXPECT_EQ(applied.error().line, 3);
  EXPECT_EQ(applied.error().file, "/ws/.ralph/config.toml");
  EXPECT_THAT(applied.error().message, HasSubstr("/ws/.ralph/config.toml:3"));
  EXPECT_THAT(applied.error().message, HasSubstr("agent.max_stepz"));
  EXPECT_THAT(applied.error().message, HasSubstr("did you mean 'agent.max_steps'"));
}

TEST(ConfigToml, UnknownSectionIsAnError) {
  Config config;
  const auto applied = apply_config_toml(config, "[agnet]\nmax_steps = 3\n", "c.toml");
  ASSERT_FALSE(applied);
  EXPECT_THAT(applied.error().message, HasSubstr("agnet"));
}

TEST(ConfigToml, WrongTypeSaysWhatWasExpected) {
  Config config;
  const auto applied = apply_config_toml(config, "[agent]\nmax_steps = \"ten\"\n", "c.toml");
  ASSERT_FALSE(applied);
  EXPECT_THAT(applied.error().message,
              HasSubstr("c.toml:2: agent.max_steps: expected an integer from 1 to 100000, got "
                        "\"ten\""));
}

TEST(ConfigToml, OutOfRangeShowsTheValue) {
  Config config;
  const auto applied = apply_config_toml(config, "[agent]\ntemperature = 3.5\n", "c.toml");
  ASSERT_FALSE(applied);
  EXPECT_THAT(applied.error().message, HasSubstr("expected a number from 0 to 2, got 3.5"));
}

TEST(ConfigToml, SyntaxErrorHasLineAndColumn) {
  Config config;
  const auto applied = apply_config_toml(config, "model = \"a\"\nmodel = = 2\n", "c.toml");
  ASSERT_FALSE(applied);
  EXPECT_EQ(applied.error().line, 2);
  EXPECT_THAT(applied.error().message, HasSubstr("c.toml:2:"));
  EXPECT_THAT(applied.error().message, HasSubstr("TOML syntax error"));
}

TEST(ConfigFile, MissingOptionalFileIsFineButMissingRequiredIsNot) {
  testing::TempDir dir;
  Config config;
  EXPECT_TRUE(apply_config_file(config, dir.path() / "none.toml", true));
  const auto required = apply_config_file(config, dir.path() / "none.toml", false);
  ASSERT_FALSE(required);
  EXPECT_THAT(required.error().message, HasSubstr("none.toml"));
}

TEST(ConfigFile, LaterFilesOverrideEarlierOnes) {
  testing::TempDir dir;
  dir.write("user.toml", "model = \"openai/a\"\n[agent]\nmax_steps = 4\n");
  dir.write("ws.toml", "model = \"openai/b\"\n");
  Config config;
  ASSERT_TRUE(apply_config_file(config, dir.path() / "user.toml", false));
  ASSERT_TRUE(apply_config_file(config, dir.path() / "ws.toml", false));
  EXPECT_EQ(config.model, "openai/b");
  EXPECT_EQ(config.agent.max_steps, 4);
}

class ConfigEnvironment : public ::testing::Test {
protected:
  Result<void> apply(Config& config) {
    return apply_environment(config, [this](const char* name) -> const char* {
      const auto it = m_env.find(name);
      return it == m_env.end() ? nullptr : it->second.c_str();
    });
  }
  std::map<std::string, std::string> m_env;
};

TEST_F(ConfigEnvironment, SeedVariablesAndCanonicalNamesApply) {
  m_env = {{"RALPH_LOOP_ENABLED", "true"},
           {"RALPH_LOOP_MAX_ITERATIONS", "5"},
           {"RALPH_MODEL", "ollama/qwen3:8b"},
           {"RALPH_TOOLS_SHELL_TIMEOUT", "9"}};
  Config config;
  ASSERT_TRUE(apply(config));
  EXPECT_TRUE(config.loop.enabled);
  EXPECT_EQ(config.loop.max_iterations, 5);
  EXPECT_EQ(config.model, "ollama/qwen3:8b");
  EXPECT_EQ(config.tools.shell_timeout, std::chrono::seconds(9));
}

TEST_F(ConfigEnvironment, CanonicalNameWinsOverAlias) {
  m_env = {{"RALPH_MAX_STEPS", "3"}, {"RALPH_AGENT_MAX_STEPS", "8"}};
  Config config;
  ASSERT_TRUE(apply(config));
  EXPECT_EQ(config.agent.max_steps, 8);
}

TEST_F(ConfigEnvironment, BadValueNamesTheVariable) {
  m_env = {{"RALPH_LOOP_MAX_ITERATIONS", "many"}};
  Config config;
  const auto applied = apply(config);
  ASSERT_FALSE(applied);
  EXPECT_THAT(applied.error().message, HasSubstr("RALPH_LOOP_MAX_ITERATIONS"));
  EXPECT_THAT(applied.error().message, HasSubstr("expected an integer"));
  EXPECT_THAT(applied.error().message, HasSubstr("\"many\""));
}

TEST_F(ConfigEnvironment, BooleansAcceptTheUsualSpellings) {
  for (const char* yes : {"1", "TRUE", "yes", "On"}) {
    m_env = {{"RALPH_LOOP_ENABLED", yes}};
    Config config;
    ASSERT_TRUE(apply(config)) << yes;
    EXPECT_TRUE(config.loop.enabled) << yes;
  }
  m_env = {{"RALPH_LOOP_ENABLED", "maybe"}};
  Config config;
  EXPECT_FALSE(apply(config));
}

TEST(ConfigToml, ListsChoicesAndPrices) {
  Config config;
  const auto applied = apply_config_toml(config, R"(
[verify]
commands = ["make check", "make lint"]
[loop]
feedback = "continue"
[prices."openai/gpt-4.1"]
input = 2.0
output = 8
)",
                                         "c.toml");
  ASSERT_TRUE(applied) << applied.error().message;
  EXPECT_EQ(config.verify.commands, (std::vector<std::string>{"make check", "make lint"}));
  EXPECT_EQ(config.loop.feedback, FeedbackMode::continuation);
  ASSERT_EQ(config.prices.count("openai/gpt-4.1"), 1u);
  EXPECT_EQ(config.prices["openai/gpt-4.1"].input, 2.0);
  EXPECT_EQ(config.prices["openai/gpt-4.1"].output, 8.0);
}

TEST(ConfigToml, ChoiceOutsideTheListIsAnError) {
  Config config;
  const auto applied = apply_config_toml(config, "[loop]\nfeedback = \"shout\"\n", "c.toml");
  ASSERT_FALSE(applied);
  EXPECT_THAT(applied.error().message,
              HasSubstr("loop.feedback: expected one of append, continue, got \"shout\""));
}

TEST(ConfigToml, ListOfNonStringsIsAnError) {
  Config config;
  const auto applied = apply_config_toml(config, "[verify]\ncommands = [1, 2]\n", "c.toml");
  ASSERT_FALSE(applied);
  EXPECT_THAT(applied.error().message, HasSubstr("expected a list of non-empty strings"));
}

// A command, file or glob that is empty names nothing: refused from a file, a variable or a
// repeated flag alike.
TEST(ConfigToml, AnEmptyCommandFileOrGlobInAListIsAnError) {
  Config config;
  const auto file = apply_config_toml(config, "[verify]\ncommands = [\"make\", \" \"]\n", "c.toml");
  ASSERT_FALSE(file);
  EXPECT_THAT(file.error().message,
              HasSubstr("c.toml:2: verify.commands: expected a list of non-empty strings, got an "
                        "empty one"));
  EXPECT_FALSE(set_config_value(config, "verify.junit", "", "environment variable X"));
  EXPECT_FALSE(append_config_value(config, "verify.protect", "", "--protect"));
  EXPECT_TRUE(set_config_value(config, "agent.args", "", "--agent-arg")) << "an argument may be";
}

TEST(ConfigToml, BadPriceNamesTheModel) {
  Config config;
  const auto applied = apply_config_toml(config, "[prices.\"x/y\"]\ninput = -1\n", "c.toml");
  ASSERT_FALSE(applied);
  EXPECT_THAT(applied.error().message, HasSubstr("prices.\"x/y\".input"));
}

TEST(ConfigToml, NanAndInfinitePricesAreRefused) {
  for (const char* number : {"nan", "inf", "+inf", "-nan"}) {
    Config config;
    const auto applied = apply_config_toml(
        config, fmt::format("[prices.\"x/y\"]\ninput = 1\noutput = {}\n", number), "c.toml");
    ASSERT_FALSE(applied) << number;
    EXPECT_EQ(applied.error().kind, ErrorKind::config);
    EXPECT_THAT(applied.error().message,
                HasSubstr("prices.\"x/y\".output: expected input or output, a finite number"));
  }
}

TEST(ConfigJson, ARecordedNullPriceIsRefusedNamingThePrice) {
  // What a configuration with `input = nan` was recorded as before nan was refused.
  Config copy;
  const auto applied = apply_config_json(
      copy, R"({"model": "x/y", "prices": {"x/y": {"input": null, "output": 2}}})", "session 7");
  ASSERT_FALSE(applied);
  EXPECT_EQ(applied.error().kind, ErrorKind::config);
  EXPECT_THAT(applied.error().message, HasSubstr("session 7: prices.\"x/y\".input: expected"));
}

// Each text is refused by ralph's guard, saying `expected`, before toml++ reads it.
void expect_refused_before_tomlpp(const std::vector<std::pair<std::string, std::string>>& texts) {
  for (const auto& [text, expected] : texts) {
    Config config;
    const auto applied = apply_config_toml(config, text, "c.toml");
    ASSERT_FALSE(applied) << text;
    EXPECT_EQ(applied.error().kind, ErrorKind::config);
    EXPECT_THAT(applied.error().message, HasSubstr(expected)) << text;
    EXPECT_THAT(applied.error().message, HasSubstr("toml++ 3.3")) << text;
  }
}

TEST(ConfigToml, NonAsciiWhereTomlppWouldCrashIsRefusedBeforeItReadsIt) {
  // Code points whose whitespace lookup reaches an unreachable point in toml++ 3.3.0 (upstream
  // issue 295): U+00A7, U+3001, U+FB30, U+2E80, in each place the parser asks about them.
  const std::vector<std::pair<std::string, std::string>> texts = {
      {"s = \"\"\"\\\n\u00A7\"\"\"\n",
       "c.toml:2:1: a non-ASCII character first after a line-ending backslash"},
      {"s = \"\"\"\\  \r\n\n  \u3001x\"\"\"\n", "c.toml:3:3: a non-ASCII character first after"},
      {"s = \"\"\"a\\\uFB30\"\"\"\n", "c.toml:1:10: a non-ASCII character right after a backslash"},
      {"model = \"x/y\"\n\u00A7 = 1\n", "c.toml:2:1: a non-ASCII character outside a string"},
      {"[agent]\nmax_steps = 3\u2E80\n", "c.toml:2:14: a non-ASCII character outside a string"},
      {"s = \"\"\"a\"\"\"\"\"\uFB30 = 1\n", "c.toml:1:14: a non-ASCII character outside"},
  };
  expect_refused_before_tomlpp(texts);
}

TEST(ConfigToml, NonAsciiAfterAQuoteGluedToAValueIsRefusedBeforeTomlppReadsIt) {
  // toml++ 3.3.0 reads such a quote as more of the number, date or time, up to a terminator, and
  // asks whether each character there is whitespace: for these code points, undefined behaviour.
  const std::vector<std::pair<std::string, std::string>> texts = {
      {"m=0\"\u00E9\n", "c.toml:1:5: a non-ASCII character after a quote glued to a value"},
      {"m=0'\u00E9\n", "c.toml:1:5: a non-ASCII character after a quote glued"},
      {"m=1.5\"\u00E9\n", "c.toml:1:7: a non-ASCII character after a quote glued"},
      {"m=[0\"\u00E9]\n", "c.toml:1:6: a non-ASCII character after a quote glued"},
      {"m=2024-01-01\"\u00E9\n", "c.toml:1:14: a non-ASCII character after a quote glued"},
      {"m=0\"x\u00E9\"\n", "c.toml:1:6: a non-ASCII character after a quote glued"},
      {"m=1979-05-27 07:32:00\"\u00E9\"\n", "c.toml:1:23: a non-ASCII character after"},
      {"x = 1\nm={a=1,b=-inf\"\u00E9\"}\n", "c.toml:2:15: a non-ASCII character after"},
      {"m=[[1],\n  [2, 1.\"\u00E9\"]]\n", "c.toml:2:10: a non-ASCII character after"},
      {"m=2024%01-01\"\u00E9\n", "c.toml:1:14: a non-ASCII character after"},
      {"m={a=1.5m=\"x\u00E9\"}\n", "c.toml:1:13: a non-ASCII character after"},
  };
  expect_refused_before_tomlpp(texts);
}

TEST(ConfigToml, AQuotedNonAsciiKeyAfterADotIsStillRead) {
  // Glued to a key, a quote does start a string: `1."é"` is a dotted key, not a number, and
  // toml++ reads it (the prices table then says what is wrong with it).
  Config config;
  const auto applied = apply_config_toml(config, "[prices.1.\"\u00E9\"]\ninput = 1\n", "c.toml");
  ASSERT_FALSE(applied);
  EXPECT_THAT(applied.error().message, HasSubstr("c.toml:1: prices.\"1\".\u00E9: expected input"));
}

TEST(ConfigToml, NonAsciiInStringsAndCommentsIsRead) {
  Config config;
  const auto applied = apply_config_toml(config, R"(# § « comment » ⸀ אּ
model = "openai/gpt-§"  # 、
[agent]
system_prompt = """Réponds\
   en français «§»\\ ⸀ \"אּ"\""""
[evidence]
marker = '''§'''
)",
                                         "c.toml");
  ASSERT_TRUE(applied) << applied.error().message;
  EXPECT_EQ(config.model, "openai/gpt-§");
  EXPECT_EQ(config.agent.system_prompt, "Répondsen français «§»\\ ⸀ \"אּ\"\"");
  EXPECT_EQ(config.evidence.marker, "§");
}

TEST(ConfigValue, RepeatedFlagsAppendToLists) {
  Config config;
  ASSERT_TRUE(set_config_value(config, "verify.commands", "make a", "--verify-cmd"));
  ASSERT_TRUE(append_config_value(config, "verify.commands", "make b", "--verify-cmd"));
  EXPECT_EQ(config.verify.commands, (std::vector<std::string>{"make a", "make b"}));
  ASSERT_TRUE(set_config_value(config, "loop.keywords", R"(["ok", "fine"])", "env"));
  EXPECT_EQ(config.loop.trigger.keywords, (std::vector<std::string>{"ok", "fine"}));
}

TEST(ConfigJson, RoundTripsEveryKeyAndThePrices) {
  Config config;
  ASSERT_TRUE(apply_config_toml(config, R"(
model = "anthropic/claude-x"
[agent]
temperature = 0.3
max_steps = 12
[verify]
commands = ["make check"]
[loop]
feedback = "continue"
[prices."anthropic/claude-x"]
input = 3
output = 15
)",
                                "c.toml"));
  Config copy;
  const auto applied = apply_config_json(copy, config_to_json(config), "session");
  ASSERT_TRUE(applied) << applied.error().message;
  EXPECT_EQ(config_to_json(copy), config_to_json(config));
  EXPECT_EQ(copy.agent.temperature, 0.3);
  EXPECT_EQ(copy.agent.max_steps, 12);
  EXPECT_EQ(copy.verify.commands, (std::vector<std::string>{"make check"}));
  EXPECT_EQ(copy.prices["anthropic/claude-x"].output, 15.0);
}

TEST(ConfigJson, TheStoreUrlIsRecordedWithoutItsPasswordAndNeverAppliedBack) {
  Config config;
  ASSERT_TRUE(set_config_value(config, "store.url",
                               "postgresql://ralph:s3cret@db.example:5432/ralph?password=s3cret",
                               "--store"));
  const std::string json = config_to_json(config);
  EXPECT_EQ(json.find("s3cret"), std::string::npos) << json;
  EXPECT_NE(json.find("postgresql://ralph:***@db.example:5432/ralph?password=***"),
            std::string::npos)
      << json;
  Config copy;
  ASSERT_TRUE(apply_config_json(copy, json, "session"));
  EXPECT_EQ(copy.store.url, "");
}

TEST(ConfigJson, UnsetTemperatureStaysUnset) {
  Config copy;
  ASSERT_TRUE(apply_config_json(copy, config_to_json(Config()), "session"));
  EXPECT_FALSE(copy.agent.temperature);
}

TEST(ConfigJson, UnknownKeyOrWrongTypeIsAnError) {
  Config config;
  EXPECT_FALSE(apply_config_json(config, R"({"agent.max_stepz": 3})", "session"));
  EXPECT_FALSE(apply_config_json(config, R"({"agent.max_steps": "x"})", "session"));
  EXPECT_FALSE(apply_config_json(config, "[]", "session"));
}

TEST(ConfigValue, DurationsCountsAndMoneyInEveryFrontEnd) {
  Config config;
  ASSERT_TRUE(set_config_value(config, "budget.max_time", "1.5m", "--time-budget"));
  EXPECT_EQ(config.budget.max_time, std::chrono::seconds(90));
  ASSERT_TRUE(set_config_value(config, "budget.max_time", "1h30m", "--time-budget"));
  EXPECT_EQ(config.budget.max_time, std::chrono::minutes(90));
  ASSERT_TRUE(set_config_value(config, "budget.max_tokens", "200k", "--token-budget"));
  EXPECT_EQ(config.budget.max_tokens, 200000);
  ASSERT_TRUE(set_config_value(config, "agent.max_tokens", "1.5k", "--max-tokens"));
  EXPECT_EQ(config.agent.max_tokens, 1500);
  ASSERT_TRUE(set_config_value(config, "budget.max_cost_usd", "$2.50", "--cost-budget"));
  EXPECT_EQ(config.budget.max_cost_usd, 2.5);
  const auto applied = apply_config_toml(config, R"([budget]
max_time = "10m"
max_tokens = "2M"
[tools]
shell_timeout = 1.5
[verify]
command_timeout = "2h"
)",
                                         "c.toml");
  ASSERT_TRUE(applied) << applied.error().message;
  EXPECT_EQ(config.budget.max_time, std::chrono::minutes(10));
  EXPECT_EQ(config.budget.max_tokens, 2000000);
  EXPECT_EQ(config.tools.shell_timeout, std::chrono::milliseconds(1500)) << "fractions of seconds";
  EXPECT_EQ(config.verify.command_timeout, std::chrono::hours(2));
}

TEST(ConfigValue, BadDurationSaysTheAcceptedForms) {
  Config config;
  const auto applied = set_config_value(config, "budget.max_time", "10x", "--time-budget");
  ASSERT_FALSE(applied);
  EXPECT_EQ(applied.error().message, "--time-budget: budget.max_time: expected a duration like "
                                     "90s, 1.5m, 2h (0: no limit), got \"10x\"");
  const auto short_one = apply_config_toml(config, "[tools]\nshell_timeout = \"0.1s\"\n", "c.toml");
  ASSERT_FALSE(short_one);
  EXPECT_THAT(short_one.error().message,
              HasSubstr("expected a duration like 90s, 1.5m, 2h, from 1s to 1d, got 0.1"));
}

TEST(ConfigValue, ZeroIsSaidAsWhatItMeansForTheKey) {
  // 0 is "no limit" for a budget only: no progress line, or no retry, for these.
  EXPECT_EQ(check_config_text("display.progress_interval", "-1"),
            "expected a duration like 90s, 1.5m, 2h (0: never)");
  EXPECT_EQ(check_config_text("store.retry_seconds", "soon"),
            "expected a duration like 90s, 1.5m, 2h (0: no retry)");
}

TEST(ConfigValue, CheckedWithoutAConfigAsAFlagWouldBe) {
  EXPECT_EQ(check_config_text("budget.max_time", "1.5m"), std::nullopt);
  EXPECT_EQ(check_config_text("budget.max_tokens", "2M"), std::nullopt);
  EXPECT_EQ(check_config_text("budget.max_time", "10x"),
            "expected a duration like 90s, 1.5m, 2h (0: no limit)");
  EXPECT_EQ(check_config_text("budget.max_tokens", "1.2345k"),
            "expected a count like 4096, 200k, 1.5k, 2M (0: no limit)");
  EXPECT_EQ(check_config_text("agent.max_tokens", "0"),
            "expected a count like 4096, 200k, 1.5k, 2M, from 1 to 10000000");
  EXPECT_EQ(check_config_text("loop.max_iterations", "0"), "expected an integer from 1 to 100000");
  EXPECT_EQ(check_config_text("budget.max_cost_usd", "-1"),
            "expected an amount in USD like 5, 0.50, $2 (0: no limit)");
  EXPECT_EQ(check_config_text("loop.feedback", "sideways"), "expected one of append, continue");
}

TEST(ConfigJson, FractionalSecondsRoundTrip) {
  Config config;
  ASSERT_TRUE(set_config_value(config, "budget.max_time", "1500ms", "flag"));
  Config copy;
  ASSERT_TRUE(apply_config_json(copy, config_to_json(config), "session"));
  EXPECT_EQ(copy.budget.max_time, std::chrono::milliseconds(1500));
  EXPECT_THAT(config_to_json(Config()), HasSubstr("\"tools.shell_timeout\":120"))
      << "whole seconds are still written as integers";
}

TEST(ConfigKeys, EveryKeyIsDescribedWithItsVariable) {
  const auto lines = describe_config_keys();
  ASSERT_FALSE(lines.empty());
  EXPECT_THAT(lines.front(), HasSubstr("RALPH_MODEL"));
}

} // namespace
} // namespace ralph

namespace ralph {
namespace {

TEST(ConfigAgents, EveryCliHasABuiltInPreset) {
  const Config config;
  for (const char* name : {"claude", "codex", "gemini", "aider", "goose", "opencode"}) {
    const auto preset = config.agents.find(name);
    ASSERT_NE(preset, config.agents.end()) << name;
    EXPECT_EQ(preset->second.command.front(), name);
    EXPECT_EQ(to_string(preset->second.format), std::string(name));
  }
}

TEST(ConfigAgents, AFileChangesOnlyTheFieldsItGivesAndAddsNewAgents) {
  Config config;
  const auto applied = apply_config_toml(config, R"(
[agents.claude]
command = ["/opt/claude", "-p", "--output-format", "stream-json", "--verbose"]

[agents.mine]
command = ["my-agent", "--task", "{prompt_file}"]
format = "text"
env = ["MY_AGENT_MODE=batch"]
)",
                                         "cfg.toml");
  ASSERT_TRUE(applied) << applied.error().message;
  const AgentPreset& claude = config.agents.at("claude");
  EXPECT_EQ(claude.command.front(), "/opt/claude");
  EXPECT_EQ(claude.format, CliFormat::claude);
  EXPECT_EQ(claude.resume, Config().agents.at("claude").resume);
  const AgentPreset& mine = config.agents.at("mine");
  EXPECT_EQ(mine.command.back(), "{prompt_file}");
  EXPECT_EQ(mine.env, std::vector<std::string>{"MY_AGENT_MODE=batch"});
}

TEST(ConfigAgents, ABadPresetNamesFileLineAgentAndField) {
  Config config;
  auto applied = apply_config_toml(
      config, "\n[agents.mine]\ncommand = [\"x\"]\nformat = \"yaml\"\n", "c.toml");
  ASSERT_FALSE(applied);
  EXPECT_THAT(applied.error().message, HasSubstr("c.toml:"));
  EXPECT_THAT(applied.error().message, HasSubstr("agents.mine.format"));
  applied = apply_config_toml(config, "[agents.mine]\nformat = \"text\"\n", "c.toml");
  ASSERT_FALSE(applied);
  EXPECT_THAT(applied.error().message, HasSubstr("agents.mine: command is missing"));
  applied = apply_config_toml(config, "[agents.mine]\ncommand = [\"x\"]\nenv = [\"NOVALUE\"]\n",
                              "c.toml");
  ASSERT_FALSE(applied);
  EXPECT_THAT(applied.error().message, HasSubstr("\"NOVALUE\" is not NAME=value"));
  applied = apply_config_toml(config, "[agents.mine]\ncommand = [\"x\"]\nargz = []\n", "c.toml");
  ASSERT_FALSE(applied);
  EXPECT_THAT(applied.error().message, HasSubstr("agents.mine.argz: unknown field"));
}

TEST(ConfigAgents, PresetsSurviveTheSessionRecord) {
  Config config;
  ASSERT_TRUE(apply_config_toml(
      config, "[agents.mine]\ncommand = [\"my-agent\"]\nformat = \"codex\"\n", "c.toml"));
  ASSERT_TRUE(set_config_value(config, "agent.cli", "mine", "--agent"));
  Config restored;
  const auto applied = apply_config_json(restored, config_to_json(config), "record");
  ASSERT_TRUE(applied) << applied.error().message;
  EXPECT_EQ(restored.agent.cli, "mine");
  EXPECT_EQ(restored.agents.at("mine").format, CliFormat::codex);
  EXPECT_EQ(restored.agents.at("mine").command, std::vector<std::string>{"my-agent"});
}

} // namespace
} // namespace ralph
