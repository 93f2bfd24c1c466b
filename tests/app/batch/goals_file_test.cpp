// A goals file read once into typed settings and resolved configurations, and a results line
// read back.
#include "support/temp_dir.h"

#include "ralph/app/batch/batch_results.h"
#include "ralph/app/batch/goals_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::app {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

TEST(BatchGoals, GoalKeysOverTheBatchConfigurationAndPathsFromTheFilesFolder) {
  testing::TempDir dir;
  dir.write("repos/app/README", "x");
  ASSERT_EQ(std::system(("git init -q " + (dir.path() / "repos/app").string()).c_str()), 0);
  dir.write("work/keep", "x");
  const fs::path file = dir.write(
      "backlog/goals.jsonl",
      "{\"id\":\"a\",\"goal\":\"g\",\"verify\":[\"make\",\"make check\"],\"max_iterations\":5,"
      "\"token_budget\":\"20k\",\"loop.feedback\":\"continue\",\"verifier_first\":true}\n"
      "{\"id\":\"b\",\"goal\":\"g\",\"repo\":\"../repos/app\",\"ref\":\"HEAD\"}\n"
      "{\"id\":\"c\",\"goal\":\"g\",\"workspace\":\"../work\"}\n"
      "{\"id\":\"d\",\"goal\":\"g\",\"repo\":\"https://example.com/x.git\"}\n");
  Config base;
  base.loop.max_iterations = 2;
  auto read = read_goals_file(file, base);
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_TRUE(read->problems.empty()) << read->problems.front();
  ASSERT_EQ(read->goals.size(), 4u);
  const Config* config = &read->goals[0].config;
  EXPECT_EQ(config->verify.commands, (std::vector<std::string>{"make", "make check"}));
  EXPECT_EQ(config->loop.max_iterations, 5);
  EXPECT_EQ(config->budget.max_tokens, 20000);
  EXPECT_EQ(config->loop.feedback, FeedbackMode::continuation);
  EXPECT_TRUE(config->evidence.enabled);
  EXPECT_EQ(read->goals[1].config.loop.max_iterations, 2);
  EXPECT_EQ(read->goals[1].source, dir.path() / "repos/app");
  EXPECT_EQ(read->goals[1].ref, "HEAD");
  EXPECT_EQ(read->goals[2].source, dir.path() / "work");
  EXPECT_EQ(read->goals[3].repo_url, "https://example.com/x.git");
}

TEST(BatchGoals, PlacesThatAreNotThereAreProblemsOfTheirLine) {
  testing::TempDir dir;
  dir.write("plain/file", "x");
  const fs::path file =
      dir.write("goals.jsonl", "{\"id\":\"a\",\"goal\":\"g\",\"workspace\":\"missing\"}\n"
                               "{\"id\":\"b\",\"goal\":\"g\",\"repo\":\"plain\"}\n"
                               "{\"id\":\"c\",\"goal\":\"g\",\"verify\":{\"cmd\":1}}\n");
  auto read = read_goals_file(file, Config{});
  ASSERT_TRUE(read);
  ASSERT_EQ(read->problems.size(), 3u);
  EXPECT_THAT(read->problems[0], HasSubstr("goals.jsonl:1: workspace"));
  EXPECT_THAT(read->problems[0], HasSubstr("not a directory"));
  EXPECT_THAT(read->problems[1], HasSubstr("goals.jsonl:2: repo"));
  EXPECT_THAT(read->problems[1], HasSubstr("not a git repository"));
  EXPECT_THAT(read->problems[2], HasSubstr("goals.jsonl:3: 'verify'"));
}

TEST(BatchGoals, ALineThatIsNotJsonSaysWhereAndWhatALineShouldBe) {
  testing::TempDir dir;
  const fs::path file = dir.write("goals.jsonl", "goal: fix it\n");
  auto read = read_goals_file(file, Config{});
  ASSERT_TRUE(read);
  ASSERT_EQ(read->problems.size(), 1u);
  EXPECT_EQ(read->problems[0],
            file.string() +
                ":1: not JSON (the line: malformed JSON near byte 1 of 12); a goal is a JSON "
                "object on one line, like {\"id\": \"fix\", \"goal\": \"make the tests pass\"}");
}

TEST(BatchGoals, AMistypedKeyIsNamedWithTheClosestGoalKey) {
  testing::TempDir dir;
  const fs::path file =
      dir.write("goals.jsonl", "{\"id\":\"a\",\"goal\":\"g\",\"max_iteration\":2}\n"
                               "{\"id\":\"b\",\"goal\":\"g\",\"agent_mod\":\"m\"}\n"
                               "{\"id\":\"c\",\"goal\":\"g\",\"loop.max_iteration\":2}\n"
                               "{\"id\":\"d\",\"goal\":\"g\",\"frobnicate\":1}\n");
  auto read = read_goals_file(file, Config{});
  ASSERT_TRUE(read);
  ASSERT_EQ(read->problems.size(), 4u);
  EXPECT_THAT(read->problems[0], HasSubstr("goals.jsonl:1: unknown key 'max_iteration'; did you "
                                           "mean 'max_iterations'?"));
  // As near to agent_cmd as to agent_model: the goal keys keep their order for ties.
  EXPECT_THAT(read->problems[1], HasSubstr("unknown key 'agent_mod'; did you mean 'agent_model'?"));
  EXPECT_THAT(read->problems[2], HasSubstr("unknown key 'loop.max_iteration'; did you mean "
                                           "'loop.max_iterations'?"));
  EXPECT_THAT(read->problems[3], HasSubstr("unknown key 'frobnicate' (man ralph"));
}

TEST(BatchResults, AResultLineWithFieldsOfTheWrongTypeKeepsWhatItCanRead) {
  const auto line = nlohmann::json::parse(
      R"({"id":"g1","status":"completed","verified":"yes","iterations":1e99,
          "usage":{"input_tokens":"10","output_tokens":5},"duration_ms":"x","cost_usd":0.5})");
  const auto result = goal_result_of(line);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->id, "g1");
  EXPECT_FALSE(result->verified);
  EXPECT_EQ(result->attempts, 0);
  EXPECT_EQ(result->tokens, 5);
  EXPECT_EQ(result->duration_ms, 0);
  ASSERT_TRUE(result->cost_usd);
  EXPECT_DOUBLE_EQ(*result->cost_usd, 0.5);
}

} // namespace
} // namespace ralph::app
