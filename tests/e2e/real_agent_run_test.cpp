// `ralph run --agent claude|opencode` through the real binary, driving the real CLIs against the
// fake provider server: a premature "done" is caught by a verify command and fixed on the next
// attempt, and a check the CLI ran with its exit code is the evidence of a verifier-first run.
#include "agent_cli_env.h"
#include "codex_cli.h"
#include "e2e_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

constexpr const char* k_fix_add = "printf 'add() { echo $(($1 + $2)); }\\n' > add.sh";

class RealAgentRun : public AgentCliTest {
protected:
  explicit RealAgentRun(AgentCli which) : AgentCliTest(which) {}

  void SetUp() override {
    AgentCliTest::SetUp();
    workspace.write("test.sh", k_test_script);
    workspace.write("add.sh", k_broken_add);
  }

  // ralph with the CLI's private home, the CLI found on PATH; `input` on its stdin.
  RalphOutput ralph(std::vector<std::string> args, const std::string& input = {}) {
    std::map<std::string, std::string> env = home.env();
    const char* path = std::getenv("PATH");
    env["PATH"] = agent_clis_dir().string() + ":" + (path != nullptr ? path : "/usr/bin:/bin");
    return input.empty() ? run_ralph(args, workspace.path(), env)
                         : run_ralph_with_input(args, workspace.path(), input, env);
  }

  // The JSON text of the messages of agent turn `index`.
  std::string messages_of(std::size_t index) const {
    const auto turns = agent_turns(cli(), server);
    EXPECT_GT(turns.size(), index);
    return turns.size() > index ? json::parse(turns[index].body)["messages"].dump() : "";
  }
};

class ClaudeRun : public RealAgentRun {
protected:
  ClaudeRun() : RealAgentRun(AgentCli::claude) {}
};

class OpencodeRun : public RealAgentRun {
protected:
  OpencodeRun() : RealAgentRun(AgentCli::opencode) {}
};

TEST_F(ClaudeRun, APrematureDoneIsCaughtAndFixedInTheResumedSession) {
  server.push(FakeTurn{.text = "All done, the test passes."});
  server.push(shell_turn(AgentCli::claude, k_fix_add));
  server.push(FakeTurn{.text = "Fixed add.sh."});
  const RalphOutput out = ralph(
      {"run", "--agent", "claude", "--verify-cmd", "sh test.sh", "--json", "make sh test.sh pass"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const json result = parse_output(out);
  EXPECT_EQ(result["status"], "completed");
  EXPECT_EQ(result["iterations"], 2);
  EXPECT_EQ(result["verified"], true);
  EXPECT_EQ(result["answer"], "Fixed add.sh.");
  EXPECT_EQ(workspace.read("add.sh"), k_fixed_add);
  EXPECT_GT(result["usage"]["input_tokens"].get<int>(), 0);
  // `append` resumed Claude's session: the second attempt's request holds the first answer and
  // the verify command's failure.
  const std::string resumed = messages_of(1);
  EXPECT_THAT(resumed, HasSubstr("All done, the test passes."));
  EXPECT_THAT(resumed, HasSubstr("FAIL: test_add"));
  EXPECT_EQ(server.turns_left(), 0u);
  // The progress names the CLI at work.
  EXPECT_THAT(out.err, HasSubstr("claude is working"));
}

TEST_F(ClaudeRun, ContinueModeStartsAFreshSessionWithTheContinuationPrompt) {
  server.push(FakeTurn{.text = "All done, the test passes."});
  server.push(shell_turn(AgentCli::claude, k_fix_add));
  server.push(FakeTurn{.text = "Fixed add.sh."});
  const RalphOutput out = ralph({"run", "--agent", "claude", "--feedback", "continue",
                                 "--verify-cmd", "sh test.sh", "make sh test.sh pass"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::string fresh = messages_of(1);
  EXPECT_THAT(fresh, HasSubstr("make sh test.sh pass"));
  EXPECT_THAT(fresh, HasSubstr("FAIL: test_add"));
  // A fresh session: the first attempt's answer is no assistant message of this conversation.
  const auto turns = agent_turns(cli(), server);
  ASSERT_GE(turns.size(), 2U);
  const json request = json::parse(turns[1].body);
  for (const json& message : request["messages"]) {
    EXPECT_NE(message.value("role", ""), "assistant") << message.dump();
  }
}

TEST_F(ClaudeRun, AChatGoesOnInClaudesOwnSession) {
  server.push(FakeTurn{.text = "Hello from Claude."});
  server.push(FakeTurn{.text = "You said hello."});
  const RalphOutput out = ralph({"chat", "--agent", "claude"}, "hello there\nwhat did I say?\n");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.out, HasSubstr("Hello from Claude."));
  EXPECT_THAT(out.out, HasSubstr("You said hello."));
  // The second turn resumed Claude's session: its request holds the first exchange.
  const std::string second = messages_of(1);
  EXPECT_THAT(second, HasSubstr("hello there"));
  EXPECT_THAT(second, HasSubstr("Hello from Claude."));
  EXPECT_THAT(second, HasSubstr("what did I say?"));
}

TEST_F(OpencodeRun, TheCheckItRanWithItsExitCodeIsTheEvidence) {
  // Attempt 1 claims completion without running anything; attempt 2 fixes, runs the check, and
  // claims again.
  server.push(FakeTurn{.text = "Done.\n<promise>DONE</promise>"});
  server.push(shell_turn(AgentCli::opencode, k_fix_add));
  server.push(shell_turn(AgentCli::opencode, "sh test.sh"));
  server.push(FakeTurn{.text = "Fixed; sh test.sh passes.\n<promise>DONE</promise>"});
  const RalphOutput out =
      ralph({"run", "--agent", "opencode", "--verifier-first", "--json", "make sh test.sh pass"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const json result = parse_output(out);
  EXPECT_EQ(result["iterations"], 2);
  EXPECT_EQ(result["verified"], true);
  ASSERT_GE(result["verdicts"].size(), 2U);
  EXPECT_EQ(result["verdicts"][0]["category"], "no_evidence");
  const json& last = result["verdicts"].back();
  EXPECT_EQ(last["verifier"], "evidence");
  EXPECT_EQ(last["result"], "pass");
  EXPECT_THAT(last["feedback"].get<std::string>(), HasSubstr("sh test.sh"));
  // opencode reports its cost per step; the run counted it.
  EXPECT_GT(result["usage"]["input_tokens"].get<int>(), 0);
  EXPECT_EQ(workspace.read("add.sh"), k_fixed_add);
}

TEST_F(OpencodeRun, AToolCallHasOneNameFromStartToEnd) {
  // opencode prints a tool call only when it ended; the start ralph shows for it is named as the
  // end is (a command with an exit code is the `shell` tool, whatever opencode calls it).
  server.push(shell_turn(AgentCli::opencode, "sh test.sh"));
  server.push(FakeTurn{.text = "Ran the tests."});
  const std::filesystem::path events = home.path() / "events.ndjson";
  const RalphOutput out =
      ralph({"run", "--agent", "opencode", "--events", events.string(), "run the tests"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  std::map<std::string, std::string> started;
  std::map<std::string, std::string> finished;
  std::string all;
  std::ifstream lines(events);
  for (std::string line; std::getline(lines, line);) {
    all += line + '\n';
    const json event = json::parse(line);
    if (event["type"] == "tool_started") {
      started[event["tool_call_id"]] = event["name"];
    } else if (event["type"] == "tool_finished") {
      finished[event["tool_call_id"]] = event["name"];
    }
  }
  ASSERT_EQ(finished.size(), 1U) << all;
  EXPECT_EQ(finished.begin()->second, "shell");
  EXPECT_EQ(started, finished);
}

// Codex runs every command as `bash -lc '…'` and reports the exit code: its check is evidence, and
// after a premature claim `append` resumes its thread (`exec … resume ID -`).
class CodexRun : public ::testing::Test {
protected:
  void SetUp() override {
    const auto found = codex_binary();
    if (!found) {
      if (agent_clis_required()) {
        FAIL() << "codex is missing in " << agent_clis_dir() << " and RALPH_REQUIRE_AGENT_CLIS=1";
      }
      GTEST_SKIP() << "codex is not installed in " << agent_clis_dir();
    }
    workspace = root.path() / "workspace";
    std::filesystem::create_directories(workspace);
    std::ofstream(workspace / "test.sh") << k_test_script;
    std::ofstream(workspace / "add.sh") << k_broken_add;
    home = write_codex_home(root.path(), server.base_url());
  }

  RalphOutput ralph(std::vector<std::string> args) {
    std::map<std::string, std::string> env(home.env.begin(), home.env.end());
    const char* path = std::getenv("PATH");
    env["PATH"] = agent_clis_dir().string() + ":" + (path != nullptr ? path : "/usr/bin:/bin");
    return run_ralph(args, workspace, env);
  }

  TempDir root;
  FakeProviderServer server;
  std::filesystem::path workspace;
  CodexHome home;
};

TEST_F(CodexRun, AClaimWithoutEvidenceIsRejectedAndTheResumedThreadProvesTheFix) {
  server.push(FakeTurn{.text = "Done.\n<promise>DONE</promise>"});
  server.push(codex_shell_turn(k_fix_add));
  server.push(codex_shell_turn("sh test.sh"));
  server.push(FakeTurn{.text = "Fixed; sh test.sh passes.\n<promise>DONE</promise>"});
  const RalphOutput out =
      ralph({"run", "--agent", "codex", "--verifier-first", "--json", "make sh test.sh pass"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const json result = parse_output(out);
  EXPECT_EQ(result["iterations"], 2);
  EXPECT_EQ(result["verified"], true);
  EXPECT_EQ(result["verdicts"][0]["category"], "no_evidence");
  const json& last = result["verdicts"].back();
  EXPECT_EQ(last["result"], "pass");
  EXPECT_THAT(last["feedback"].get<std::string>(), HasSubstr("`sh test.sh` passed"));
  EXPECT_EQ(root.read("workspace/add.sh"), k_fixed_add);
  // The second attempt went on in the same thread: its first request carries the first answer.
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 4U);
  const json second = json::parse(requests[1].body);
  bool first_answer_in_history = false;
  for (const json& item : second["input"]) {
    first_answer_in_history =
        first_answer_in_history ||
        (item.value("role", "") == "assistant" && item.dump().find("Done.") != std::string::npos);
  }
  EXPECT_TRUE(first_answer_in_history) << requests[1].body.substr(0, 2000);
  EXPECT_THAT(requests[1].body, HasSubstr("no_evidence"));
  // Codex reports the thread's running total; the run counts each token once.
  const json usage = result["usage"];
  EXPECT_GT(usage["input_tokens"].get<std::int64_t>(), 0);
  std::int64_t sent = 0;
  for (const RecordedRequest& request : requests) {
    sent += static_cast<std::int64_t>(request.body.size() / 4);
  }
  EXPECT_LE(usage["input_tokens"].get<std::int64_t>(), sent + 1000);
}

} // namespace
} // namespace ralph::testing
