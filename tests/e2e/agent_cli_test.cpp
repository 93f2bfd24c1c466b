// The real agent CLIs (tests/agent_clis) driven directly against the fake provider server: each
// one runs its own shell tool in a temp workspace, prints its event stream to the end, and carries
// the conversation into a resumed session. The `ralph run --agent` tests build on the same setup
// (agent_cli_env.h).
#include "agent_cli_env.h"
#include "fake_provider/fake_provider_server.h"
#include "support/temp_dir.h"

#include "ralph/tools/process_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

// The command the model runs: it writes a file, then fails like a test would.
constexpr const char* k_command = "printf 'made by the agent\\n' > made.txt; "
                                  "echo 'FAIL: test_add' >&2; exit 3";

// The first event of `type` (with `subtype` when given), or null.
json find_event(const std::vector<json>& events, const std::string& type,
                const std::string& subtype = "") {
  for (const json& event : events) {
    if (event.value("type", "") == type &&
        (subtype.empty() || event.value("subtype", "") == subtype)) {
      return event;
    }
  }
  return nullptr;
}

class ClaudeCode : public AgentCliTest {
protected:
  ClaudeCode() : AgentCliTest(AgentCli::claude) {}

  CliRun claude(std::vector<std::string> session_args, std::string prompt) {
    std::vector<std::string> argv{binary().string(),  "-p",        "--output-format",
                                  "stream-json",      "--verbose", "--permission-mode",
                                  "bypassPermissions"};
    argv.insert(argv.end(), session_args.begin(), session_args.end());
    return run_cli(workspace.path(), home.env_list(), std::move(argv), std::move(prompt));
  }
};

TEST_F(ClaudeCode, RunsItsBashToolInTheWorkspaceThenResumesTheSession) {
  server.push(shell_turn(AgentCli::claude, k_command));
  server.push(FakeTurn{.text = "The test fails: add is broken."});
  const std::string session = random_uuid();

  const CliRun first = claude({"--session-id", session}, "Create made.txt and run the tests.");

  ASSERT_EQ(first.process.exit_code, 0) << describe(first);
  EXPECT_EQ(workspace.read("made.txt"), "made by the agent\n");
  const json init = find_event(first.events, "system", "init");
  ASSERT_TRUE(init.is_object()) << describe(first);
  EXPECT_EQ(init["session_id"], session);
  EXPECT_EQ(init["cwd"], workspace.path().string());
  // The tool result: no exit-code field, only is_error and the text.
  const json user = find_event(first.events, "user");
  ASSERT_TRUE(user.is_object()) << describe(first);
  const json& tool_result = user["message"]["content"][0];
  EXPECT_EQ(tool_result["type"], "tool_result");
  EXPECT_EQ(tool_result["is_error"], true);
  EXPECT_THAT(tool_result["content"].dump(), HasSubstr("Exit code 3"));
  EXPECT_THAT(tool_result["content"].dump(), HasSubstr("FAIL: test_add"));
  const json& result = first.events.back();
  EXPECT_EQ(result["type"], "result");
  EXPECT_EQ(result["subtype"], "success");
  EXPECT_EQ(result["is_error"], false);
  EXPECT_EQ(result["result"], "The test fails: add is broken.");
  EXPECT_EQ(result["session_id"], session);
  EXPECT_EQ(result["num_turns"], 2);
  EXPECT_GT(result["total_cost_usd"].get<double>(), 0.0);
  // Every request was a model turn: no health check, telemetry or side request.
  for (const RecordedRequest& request : server.requests()) {
    EXPECT_EQ(request.method + " " + request.path, "POST /v1/messages");
    EXPECT_TRUE(is_agent_turn(AgentCli::claude, request)) << request.body.substr(0, 500);
  }
  EXPECT_EQ(server.requests().size(), 2u);

  server.push(FakeTurn{.text = "Fixed after the feedback."});
  const CliRun second = claude({"--resume", session}, "Feedback: FAIL: test_add still fails.");

  ASSERT_EQ(second.process.exit_code, 0) << describe(second);
  EXPECT_EQ(second.events.back()["result"], "Fixed after the feedback.");
  EXPECT_EQ(second.events.back()["session_id"], session);
  const auto turns = agent_turns(AgentCli::claude, server);
  ASSERT_EQ(turns.size(), 3u);
  // The resumed request carries the first run's prompt, tool call, tool result and answer.
  const std::string carried = json::parse(turns.back().body)["messages"].dump();
  EXPECT_THAT(carried, HasSubstr("Create made.txt and run the tests."));
  EXPECT_THAT(carried, HasSubstr(json(k_command).dump()));
  EXPECT_THAT(carried, HasSubstr("FAIL: test_add"));
  EXPECT_THAT(carried, HasSubstr("The test fails: add is broken."));
  EXPECT_THAT(carried, HasSubstr("Feedback: FAIL: test_add still fails."));
  EXPECT_EQ(server.turns_left(), 0u);
}

class Opencode : public AgentCliTest {
protected:
  Opencode() : AgentCliTest(AgentCli::opencode) {}

  CliRun opencode(std::vector<std::string> args, std::string stdin_data = {}) {
    // --dir: opencode works in $PWD, not in the directory it was started in.
    std::vector<std::string> argv{
        binary().string(), "run", "--format", "json", "--auto", "--dir", workspace.path().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_cli(workspace.path(), home.env_list(), std::move(argv), std::move(stdin_data));
  }
};

TEST_F(Opencode, RunsItsBashToolInTheWorkspaceThenResumesTheSession) {
  server.push(shell_turn(AgentCli::opencode, k_command));
  server.push(FakeTurn{.text = "The test fails: add is broken."});

  const CliRun first = opencode({"Create made.txt and run the tests."});

  ASSERT_EQ(first.process.exit_code, 0) << describe(first);
  EXPECT_EQ(workspace.read("made.txt"), "made by the agent\n");
  ASSERT_FALSE(first.events.empty()) << describe(first);
  const std::string session = first.events.front()["sessionID"];
  EXPECT_EQ(session.rfind("ses_", 0), 0u) << session;
  const json tool_use = find_event(first.events, "tool_use");
  ASSERT_TRUE(tool_use.is_object()) << describe(first);
  const json& tool = tool_use["part"];
  EXPECT_EQ(tool["tool"], "bash");
  EXPECT_EQ(tool["state"]["status"], "completed");
  EXPECT_EQ(tool["state"]["metadata"]["exit"], 3);
  EXPECT_THAT(tool["state"]["output"].get<std::string>(), HasSubstr("FAIL: test_add"));
  EXPECT_EQ(find_event(first.events, "text")["part"]["text"], "The test fails: add is broken.");
  // 1.18 prints no `done` event: the stream ends with the last step's step_finish.
  const json& last = first.events.back();
  EXPECT_EQ(last["type"], "step_finish");
  EXPECT_EQ(last["part"]["reason"], "stop");
  double cost = 0;
  int steps = 0;
  for (const json& event : first.events) {
    EXPECT_EQ(event["sessionID"], session);
    if (event["type"] == "step_finish") {
      cost += event["part"]["cost"].get<double>();
      EXPECT_GT(event["part"]["tokens"]["input"].get<int>(), 0);
      ++steps;
    }
  }
  EXPECT_EQ(steps, 2);
  EXPECT_GT(cost, 0.0);
  // Nothing was installed from the npm registry into the private home.
  EXPECT_FALSE(std::filesystem::exists(home.path() / ".npm"));
  EXPECT_FALSE(std::filesystem::exists(home.path() / ".config/opencode/package.json"));
  // The session-title request went to the side responder; only agent turns used the queue.
  EXPECT_EQ(agent_turns(AgentCli::opencode, server).size(), 2u);
  EXPECT_EQ(server.requests().size(), 3u);

  server.push(FakeTurn{.text = "Fixed after the feedback."});
  const CliRun second = opencode({"--session", session}, "Feedback: FAIL: test_add still fails.");

  ASSERT_EQ(second.process.exit_code, 0) << describe(second);
  EXPECT_EQ(find_event(second.events, "text")["part"]["text"], "Fixed after the feedback.");
  EXPECT_EQ(second.events.back()["sessionID"], session);
  const auto turns = agent_turns(AgentCli::opencode, server);
  ASSERT_EQ(turns.size(), 3u);
  const std::string carried = json::parse(turns.back().body)["messages"].dump();
  EXPECT_THAT(carried, HasSubstr("Create made.txt and run the tests."));
  EXPECT_THAT(carried, HasSubstr(json(k_command).dump().substr(1, 20)));
  EXPECT_THAT(carried, HasSubstr("FAIL: test_add"));
  EXPECT_THAT(carried, HasSubstr("The test fails: add is broken."));
  EXPECT_THAT(carried, HasSubstr("Feedback: FAIL: test_add still fails."));
  EXPECT_EQ(server.turns_left(), 0u);
}

// A missing CLI skips its tests, unless RALPH_REQUIRE_AGENT_CLIS=1 makes that a failure (CI).
TEST(AgentCliLookup, MissingCliSkipsItsTestsUnlessRequired) {
  const TempDir empty;
  const auto run_claude_tests = [&](const char* required) {
    tools::ProcessSpec spec{.argv = {std::filesystem::read_symlink("/proc/self/exe").string(),
                                     "--gtest_filter=ClaudeCode.*"},
                            .timeout = std::chrono::minutes(1),
                            .env = {{"RALPH_AGENT_CLIS_DIR", empty.path().string()},
                                    {"RALPH_REQUIRE_AGENT_CLIS", required}}};
    tools::PosixProcessRunner runner;
    auto result = runner.run(spec, CancelToken{});
    EXPECT_TRUE(result);
    return result ? *result : tools::ProcessResult{};
  };
  const std::string missing = "claude is not installed in " + empty.path().string();

  const auto skipped = run_claude_tests("0");
  EXPECT_EQ(skipped.exit_code, 0) << skipped.output;
  EXPECT_THAT(skipped.output, HasSubstr("[  SKIPPED ]"));
  EXPECT_THAT(skipped.output, HasSubstr(missing));

  const auto failed = run_claude_tests("1");
  EXPECT_EQ(failed.exit_code, 1) << failed.output;
  EXPECT_THAT(failed.output, HasSubstr("[  FAILED  ]"));
  EXPECT_THAT(failed.output, HasSubstr(missing));
}

} // namespace
} // namespace ralph::testing
