// `ralph run --agent claude|opencode` through the real binary, driving the real CLIs against the
// fake provider server: a premature "done" is caught by a verify command and fixed on the next
// attempt, and a check the CLI ran with its exit code is the evidence of a verifier-first run.
#include "agent_cli_env.h"
#include "codex_cli.h"
#include "e2e_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <unistd.h>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
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

  // ralph with the CLI's private home (and `more` variables), the CLI found on PATH; `input` on
  // its stdin.
  RalphOutput ralph(std::vector<std::string> args, const std::string& input = {},
                    const std::map<std::string, std::string>& more = {}) {
    std::map<std::string, std::string> env = home.env();
    for (const auto& [name, value] : more) {
      env[name] = value;
    }
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

TEST_F(ClaudeRun, TheCheckItRanIsTheEvidenceThoughClaudeCodeReportsNoExitCodeField) {
  // Attempt 1 runs the failing check and claims completion anyway; attempt 2 fixes, runs the
  // check again, and claims. Claude Code's Bash results carry is_error and "Exit code N", not an
  // exit-code field: the codes are read from them.
  server.push(shell_turn(AgentCli::claude, "sh test.sh"));
  server.push(FakeTurn{.text = "Done.\n<promise>DONE</promise>"});
  server.push(shell_turn(AgentCli::claude, k_fix_add));
  server.push(shell_turn(AgentCli::claude, "sh test.sh"));
  server.push(FakeTurn{.text = "Fixed; sh test.sh passes.\n<promise>DONE</promise>"});
  const RalphOutput out =
      ralph({"run", "--agent", "claude", "--verifier-first", "--json", "make sh test.sh pass"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const json result = parse_output(out);
  EXPECT_EQ(result["iterations"], 2);
  EXPECT_EQ(result["verified"], true);
  ASSERT_EQ(result["verdicts"].size(), 2U);
  const json& first = result["verdicts"][0];
  EXPECT_EQ(first["category"], "test_failed") << result.dump(1) << out.err;
  EXPECT_EQ(first["evidence"]["exit_code"], 1);
  EXPECT_THAT(first["feedback"].get<std::string>(), HasSubstr("`sh test.sh` exited with code 1"));
  const json& last = result["verdicts"][1];
  EXPECT_EQ(last["verifier"], "evidence");
  EXPECT_EQ(last["result"], "pass");
  EXPECT_EQ(last["evidence"]["exit_code"], 0);
  EXPECT_THAT(last["feedback"].get<std::string>(), HasSubstr("`sh test.sh` passed"));
  EXPECT_EQ(workspace.read("add.sh"), k_fixed_add);
  // The agent was told its check failed, not that it never ran one.
  EXPECT_THAT(messages_of(2), HasSubstr("exited with code 1"));
}

TEST_F(ClaudeRun, AsRootWithoutIsSandboxTheFailureSaysHowToAllowIt) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "Claude Code refuses bypassPermissions only to root";
  }
  const RalphOutput out = ralph({"run", "--agent", "claude", "--json", "make sh test.sh pass"}, {},
                                {{"IS_SANDBOX", ""}});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  // Claude Code's own words, then what to do about them.
  EXPECT_THAT(out.err, HasSubstr("cannot be used with root/sudo privileges"));
  EXPECT_THAT(out.err, HasSubstr("set IS_SANDBOX=1 in ralph's environment"));
  EXPECT_TRUE(server.requests().empty());
}

// What a server says when a plan's usage limit refuses a request (Claude Code reads the
// anthropic-ratelimit-unified-* headers), resetting at `reset`.
FakeTurn claude_usage_limit(std::chrono::system_clock::time_point reset) {
  FakeTurn turn;
  turn.fault = Fault::custom_error;
  turn.status = 429;
  turn.error_body =
      R"({"type":"error","error":{"type":"rate_limit_error","message":"rate limited"}})";
  turn.headers = {
      {"anthropic-ratelimit-unified-status", "rejected"},
      {"anthropic-ratelimit-unified-reset",
       std::to_string(
           std::chrono::duration_cast<std::chrono::seconds>(reset.time_since_epoch()).count())},
      {"anthropic-ratelimit-unified-representative-claim", "five_hour"},
      {"x-should-retry", "false"}};
  return turn;
}

// Claude Code applies a plan's usage limit (and prints it) when it signs in to a gateway or to
// claude.ai, not with an API key: a token for a gateway (a JWT whose audience is
// "claude-gateway"; never checked by the fake server) makes it do so here.
const std::map<std::string, std::string> k_gateway_sign_in = {
    {"ANTHROPIC_API_KEY", ""},
    {"ANTHROPIC_AUTH_TOKEN",
     "eyJhbGciOiJub25lIn0.eyJhdWQiOiJjbGF1ZGUtZ2F0ZXdheSIsImV4cCI6NDEwMjQ0NDgwMH0.c2ln"}};

TEST_F(ClaudeRun, AUsageLimitIsWaitedOutAndTheSessionGoesOn) {
  // The limit reset a minute ago: the wait is over at once, and the run goes on.
  server.push(claude_usage_limit(std::chrono::system_clock::now() - std::chrono::minutes(1)));
  server.push(FakeTurn{.text = "Done after the reset."});
  const std::string events = (workspace.path() / "events.ndjson").string();
  const RalphOutput out =
      ralph({"run", "--agent", "claude", "--events", events, "--json", "make sh test.sh pass"}, {},
            k_gateway_sign_in);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const json result = parse_output(out);
  EXPECT_EQ(result["status"], "completed");
  EXPECT_EQ(result["iterations"], 1);
  EXPECT_EQ(result["answer"], "Done after the reset.");
  EXPECT_THAT(out.err, HasSubstr("Claude Code's usage limit is reached; waiting until"));
  // The event, with Claude Code's words and the reset time.
  std::ifstream lines(events);
  json wait;
  for (std::string line; std::getline(lines, line);) {
    const json event = json::parse(line);
    if (event.value("type", "") == "agent_limit_wait") {
      wait = event;
    }
  }
  ASSERT_TRUE(wait.is_object()) << "no agent_limit_wait in " << events;
  EXPECT_EQ(wait["agent"], "Claude Code");
  EXPECT_THAT(wait["message"].get<std::string>(), HasSubstr("You've hit your 5-hour limit"));
  EXPECT_TRUE(wait.contains("resets_at"));
  // Claude's own session went on, told that the limit reset.
  EXPECT_THAT(messages_of(1), HasSubstr("The usage limit has reset"));
  EXPECT_THAT(messages_of(1), HasSubstr("make sh test.sh pass"));
}

TEST_F(ClaudeRun, AUsageLimitResettingAfterTheTimeBudgetEndsTheRunSayingSo) {
  server.push(claude_usage_limit(std::chrono::system_clock::now() + std::chrono::hours(3)));
  const RalphOutput out =
      ralph({"run", "--agent", "claude", "--time-budget", "3600", "--json", "make sh test.sh pass"},
            {}, k_gateway_sign_in);
  EXPECT_EQ(out.exit_code, 1) << out.err;
  EXPECT_EQ(parse_output(out)["status"], "failed");
  EXPECT_THAT(out.err, HasSubstr("Claude Code's usage limit is reached until"));
  EXPECT_THAT(out.err, HasSubstr("after the time budget ends; not waiting"));
  EXPECT_THAT(out.err, HasSubstr("You've hit your 5-hour limit"));
  EXPECT_THAT(out.err, Not(HasSubstr("waiting until")));
  EXPECT_EQ(server.requests().size(), 1U);
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

// What a ChatGPT plan's usage limit answers Codex, resetting at `reset`.
FakeTurn codex_usage_limit(std::chrono::system_clock::time_point reset) {
  FakeTurn turn;
  turn.fault = Fault::custom_error;
  turn.status = 429;
  turn.error_body =
      json{{"error",
            {{"type", "usage_limit_reached"},
             {"message", "The usage limit has been reached"},
             {"plan_type", "plus"},
             {"resets_at",
              std::chrono::duration_cast<std::chrono::seconds>(reset.time_since_epoch()).count()}}}}
          .dump();
  return turn;
}

TEST_F(CodexRun, AUsageLimitIsWaitedOutAndTheThreadGoesOn) {
  // Codex says "try again at 5:44 AM." in local time; that time passed a minute ago.
  server.push(codex_usage_limit(std::chrono::system_clock::now() - std::chrono::minutes(1)));
  server.push(FakeTurn{.text = "Done after the reset."});
  const RalphOutput out = ralph({"run", "--agent", "codex", "--json", "say done"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const json result = parse_output(out);
  EXPECT_EQ(result["status"], "completed");
  EXPECT_EQ(result["iterations"], 1);
  EXPECT_EQ(result["answer"], "Done after the reset.");
  EXPECT_THAT(out.err, HasSubstr("Codex's usage limit is reached; waiting until"));
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_THAT(requests[1].body, HasSubstr("The usage limit has reset"));
}

TEST_F(CodexRun, AUsageLimitResettingAfterTheTimeBudgetEndsTheRunSayingWhen) {
  const auto reset = std::chrono::system_clock::now() + std::chrono::hours(3);
  server.push(codex_usage_limit(reset));
  const RalphOutput out =
      ralph({"run", "--agent", "codex", "--time-budget", "3600", "--json", "say done"});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  EXPECT_EQ(parse_output(out)["status"], "failed");
  // Codex says the time to the minute, in local time; ralph says it in UTC.
  const std::time_t reset_time = std::chrono::system_clock::to_time_t(reset);
  std::tm utc{};
  gmtime_r(&reset_time, &utc);
  char minute[32];
  std::strftime(minute, sizeof minute, "%Y-%m-%dT%H:%M:00", &utc);
  EXPECT_THAT(out.err, HasSubstr(std::string("Codex's usage limit is reached until ") + minute));
  EXPECT_THAT(out.err, HasSubstr("after the time budget ends; not waiting"));
  EXPECT_THAT(out.err, HasSubstr("hit your usage limit"));
}

} // namespace
} // namespace ralph::testing
