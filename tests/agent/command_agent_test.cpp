#include "support/recording_observer.h"
#include "support/recording_sink.h"
#include "support/temp_dir.h"

#include "ralph/agent/command_agent.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <string>
#include <thread>
#include <vector>

namespace ralph::agent {
namespace {

using namespace std::chrono_literals;
using ralph::testing::RecordingObserver;
using ralph::testing::RecordingSink;
using ralph::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A stand-in CLI: each run N records its arguments (argv.N, one per line) and stdin (stdin.N) in
// the workspace, prints out.N and exits with code.N (0 when missing).
constexpr std::string_view k_fake_cli = R"(#!/bin/sh
n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count
printf '%s\n' "$@" > argv.$n
cat > stdin.$n
[ -f out.$n ] && cat out.$n
[ -f err.$n ] && cat err.$n >&2
exit $(cat code.$n 2>/dev/null || echo 0)
)";

class CommandAgentTest : public ::testing::Test {
protected:
  CommandAgentTest() {
    const auto cli = workspace.write("fake-cli", k_fake_cli);
    std::filesystem::permissions(cli, std::filesystem::perms::owner_all);
    options.name = "claude";
    options.preset.command = {cli.string(), "-p", "--output-format", "stream-json"};
    options.preset.resume = {cli.string(), "-p", "--resume", "{session}"};
    options.preset.format = CliFormat::claude;
    options.preset.model_args = {"--model", "{model}"};
    options.preset.budget_args = {"--max-budget-usd", "{budget_usd}"};
    options.workspace = workspace.path();
    options.timeout = 30s;
  }

  // What run `n` of the CLI prints and how it exits.
  void script(int n, std::string_view out, int code = 0, std::string_view err = {}) {
    workspace.write(fmt::format("out.{}", n), out);
    workspace.write(fmt::format("code.{}", n), std::to_string(code));
    if (!err.empty()) {
      workspace.write(fmt::format("err.{}", n), err);
    }
  }
  std::vector<std::string> argv_of(int n) const {
    std::vector<std::string> lines;
    std::string text = workspace.read(fmt::format("argv.{}", n));
    std::size_t at = 0;
    while (at < text.size()) {
      const auto end = text.find('\n', at);
      lines.push_back(text.substr(at, end - at));
      at = end + 1;
    }
    return lines;
  }

  AgentOutcome run(CommandAgent& agent, const CancelToken& cancel = {}) {
    return agent.run(conversation, cancel, observer, events);
  }

  TempDir workspace;
  CommandAgentOptions options;
  tools::PosixProcessRunner runner;
  std::vector<Message> conversation{Message{.role = Role::user, .content = "fix the parser"}};
  RecordingObserver observer;
  RecordingSink events;
};

constexpr std::string_view k_claude_fixed =
    R"({"type":"system","subtype":"init","session_id":"s-1","model":"claude-sonnet-4-5"}
{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Running the tests."}]},"session_id":"s-1"}
{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make test"}}]},"session_id":"s-1"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Exit code 2\nFAIL parse","is_error":true}]},"session_id":"s-1"}
{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"Fixed it."}]},"session_id":"s-1"}
{"type":"result","subtype":"success","is_error":false,"result":"Fixed it.","session_id":"s-1","total_cost_usd":0.25,"usage":{"input_tokens":100,"output_tokens":20}}
)";

TEST_F(CommandAgentTest, TheStreamBecomesTheConversationTheFactsAndTheAnswer) {
  script(1, k_claude_fixed);
  CommandAgent agent(runner, options);
  const AgentOutcome outcome = run(agent);
  ASSERT_EQ(outcome.stop, AgentStop::answered) << outcome.error.value_or(Error{}).message;
  EXPECT_EQ(outcome.answer, "Fixed it.");
  EXPECT_EQ(outcome.tool_calls, 1);
  EXPECT_EQ(agent.cli_session(), "s-1");
  // The prompt went on stdin.
  EXPECT_EQ(workspace.read("stdin.1"), "fix the parser");

  ASSERT_EQ(observer.tool_calls.size(), 1U);
  // Claude's Bash result implies its exit code ("Exit code 2"): the call is a `shell` check.
  EXPECT_EQ(observer.tool_calls[0].call.name, "shell");
  EXPECT_TRUE(observer.tool_calls[0].result.is_error);
  EXPECT_EQ(observer.tool_calls[0].result.exit_code, 2);
  ASSERT_EQ(observer.model_calls.size(), 1U);
  EXPECT_EQ(observer.model_calls[0].model, "claude/claude-sonnet-4-5");
  EXPECT_EQ(observer.model_calls[0].usage.output_tokens, 20);
  EXPECT_EQ(observer.model_calls[0].cost_usd, 0.25);

  // goal, assistant with the call, the tool result, the answer
  ASSERT_EQ(conversation.size(), 4U);
  EXPECT_EQ(conversation[1].content, "Running the tests.\n");
  EXPECT_EQ(conversation[1].tool_calls.at(0).id, "t1");
  EXPECT_EQ(conversation[2].role, Role::tool);
  EXPECT_THAT(conversation[2].content, HasSubstr("FAIL parse"));
  EXPECT_EQ(conversation[3].content, "Fixed it.");
  const auto started = events.of<event::ModelStarted>();
  ASSERT_EQ(started.size(), 1U);
  EXPECT_EQ(started[0].agent, "claude");
  EXPECT_EQ(events.of<event::ToolStarted>().size(), 1U);
  const auto finished = events.of<event::AgentFinished>();
  ASSERT_EQ(finished.size(), 1U);
  EXPECT_EQ(finished[0].agent_session, "s-1");
}

TEST_F(CommandAgentTest, AppendFeedbackResumesTheCliSessionWithOnlyTheFeedback) {
  script(1, k_claude_fixed);
  script(2, R"({"type":"system","subtype":"init","session_id":"s-1"}
{"type":"result","subtype":"success","is_error":false,"result":"Now it passes.","session_id":"s-1","total_cost_usd":0.40,"usage":{"input_tokens":150,"output_tokens":30}}
)");
  CommandAgent agent(runner, options);
  ASSERT_EQ(run(agent).stop, AgentStop::answered);
  conversation.push_back(Message{.role = Role::user, .content = "make test still fails"});
  const AgentOutcome second = run(agent);
  ASSERT_EQ(second.stop, AgentStop::answered) << second.error.value_or(Error{}).message;
  EXPECT_EQ(second.answer, "Now it passes.");
  EXPECT_THAT(argv_of(2), ElementsAre("-p", "--resume", "s-1"));
  EXPECT_EQ(workspace.read("stdin.2"), "make test still fails");
  // Claude's cost is per process: each process's own total is counted.
  ASSERT_EQ(observer.model_calls.size(), 2U);
  EXPECT_EQ(observer.model_calls[1].cost_usd, 0.40);
  EXPECT_FALSE(std::filesystem::exists(workspace.path() / ".ralph" / "feedback.md"));
}

TEST_F(CommandAgentTest, WithoutASessionAFreshProcessGetsGoalAnswerAndFeedbackAlsoInAFile) {
  options.preset.resume.clear();
  options.preset.format = CliFormat::text;
  script(1, "I think it is done.\n");
  script(2, "Done now.\n");
  CommandAgent agent(runner, options);
  ASSERT_EQ(run(agent).stop, AgentStop::answered);
  conversation.push_back(Message{.role = Role::user, .content = "make test still fails"});
  const AgentOutcome second = run(agent);
  ASSERT_EQ(second.stop, AgentStop::answered);
  EXPECT_EQ(second.answer, "Done now.");
  const std::string prompt = workspace.read("stdin.2");
  EXPECT_THAT(prompt, HasSubstr("fix the parser"));
  EXPECT_THAT(prompt, HasSubstr("I think it is done."));
  EXPECT_THAT(prompt, HasSubstr("make test still fails"));
  EXPECT_EQ(workspace.read(".ralph/feedback.md"), prompt);

  // Feedback `continue`: the continuation prompt alone replaces the history.
  script(3, "Done again.\n");
  conversation = {Message{.role = Role::user, .content = "Objective: fix the parser. Attempt 3."}};
  ASSERT_EQ(run(agent).stop, AgentStop::answered);
  EXPECT_EQ(workspace.read("stdin.3"), "Objective: fix the parser. Attempt 3.");
  EXPECT_EQ(workspace.read(".ralph/feedback.md"), "Objective: fix the parser. Attempt 3.");
}

TEST_F(CommandAgentTest, ModelBudgetAndExtraArgumentsGoBeforeTheStdinDash) {
  options.preset.command.emplace_back("-");
  options.model = "opus";
  options.extra_args = {"--effort", "high"};
  observer.cost_left = 1.5;
  script(1, k_claude_fixed);
  CommandAgent agent(runner, options);
  ASSERT_EQ(run(agent).stop, AgentStop::answered);
  EXPECT_THAT(argv_of(1), ElementsAre("-p", "--output-format", "stream-json", "--model", "opus",
                                      "--max-budget-usd", "1.5000", "--effort", "high", "-"));
}

TEST_F(CommandAgentTest, ATerminalErrorFailsTheAttemptEvenWithExitCodeZero) {
  script(1, R"({"type":"system","subtype":"init","session_id":"s-1"}
{"type":"result","subtype":"success","is_error":true,"result":"API Error: Rate limit reached","api_error_status":429,"session_id":"s-1"}
)");
  CommandAgent agent(runner, options);
  const AgentOutcome outcome = run(agent);
  EXPECT_EQ(outcome.stop, AgentStop::failed);
  ASSERT_TRUE(outcome.error);
  EXPECT_THAT(outcome.error->message, HasSubstr("claude reported an error (exit code 0)"));
  EXPECT_THAT(outcome.error->message, HasSubstr("Rate limit reached"));
}

TEST_F(CommandAgentTest, AStreamWithoutItsResultEventIsAFailureQuotingStderr) {
  script(1, R"({"type":"system","subtype":"init","session_id":"s-1"}
{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"All done."}]}}
)",
         0, "warming up\nsegfault in worker\n");
  CommandAgent agent(runner, options);
  const AgentOutcome outcome = run(agent);
  EXPECT_EQ(outcome.stop, AgentStop::failed);
  ASSERT_TRUE(outcome.error);
  EXPECT_THAT(outcome.error->message,
              HasSubstr("claude ended without its final result event (exit code 0)"));
  EXPECT_THAT(outcome.error->message, HasSubstr("segfault in worker"));
}

TEST_F(CommandAgentTest, APlainProgramFailsOnANonZeroExit) {
  options.preset.format = CliFormat::text;
  script(1, "partial work\n", 3, "boom\n");
  CommandAgent agent(runner, options);
  const AgentOutcome outcome = run(agent);
  EXPECT_EQ(outcome.stop, AgentStop::failed);
  EXPECT_THAT(outcome.error->message, HasSubstr("claude failed (exit code 3)"));
  EXPECT_THAT(outcome.error->message, HasSubstr("boom"));
}

TEST_F(CommandAgentTest, AMissingProgramIsAClearFailure) {
  options.preset.command = {"ralph-no-such-agent-cli", "-p"};
  CommandAgent agent(runner, options);
  const AgentOutcome outcome = run(agent);
  EXPECT_EQ(outcome.stop, AgentStop::failed);
  EXPECT_THAT(outcome.error->message, HasSubstr("claude could not be started"));
  EXPECT_THAT(outcome.error->message, HasSubstr("ralph-no-such-agent-cli"));
}

TEST_F(CommandAgentTest, SilenceLongerThanTheIdleLimitStopsTheCli) {
  options.preset.command = {"/bin/sh", "-c", "echo '{\"type\":\"system\"}'; sleep 1000"};
  options.idle_timeout = 300ms;
  CommandAgent agent(runner, options);
  const AgentOutcome outcome = run(agent);
  EXPECT_EQ(outcome.stop, AgentStop::failed);
  EXPECT_THAT(outcome.error->message, HasSubstr("claude printed nothing for"));
  EXPECT_THAT(outcome.error->message, HasSubstr("agent.idle_timeout"));
}

TEST_F(CommandAgentTest, ACancelStopsTheCliAsCancelled) {
  options.preset.command = {"/bin/sh", "-c", "echo $$ > cli.pid; sleep 1000"};
  CommandAgent agent(runner, options);
  CancelToken cancel;
  std::thread canceller([&] {
    while (!std::filesystem::exists(workspace.path() / "cli.pid")) {
      std::this_thread::yield();
    }
    cancel.cancel();
  });
  const AgentOutcome outcome = run(agent, cancel);
  canceller.join();
  EXPECT_EQ(outcome.stop, AgentStop::cancelled);
  const pid_t pid = std::stoi(workspace.read("cli.pid"));
  EXPECT_NE(::kill(pid, 0), 0); // gone, and reaped
}

TEST_F(CommandAgentTest, AShellLineGetsItsPlaceholdersQuoted) {
  options.name = "command";
  options.shell_line = true;
  options.preset.format = CliFormat::text;
  options.preset.command = {"/bin/sh", "-c", "printf '%s' {prompt} > seen; cat {prompt_file}"};
  conversation[0].content = "it's \"quoted\" $HOME";
  CommandAgent agent(runner, options);
  const AgentOutcome outcome = run(agent);
  ASSERT_EQ(outcome.stop, AgentStop::answered) << outcome.error.value_or(Error{}).message;
  EXPECT_EQ(workspace.read("seen"), "it's \"quoted\" $HOME");
  EXPECT_EQ(outcome.answer, "it's \"quoted\" $HOME");
}

TEST_F(CommandAgentTest, CodexThreadTotalsAreCountedOnceAcrossResumedProcesses) {
  options.name = "codex";
  options.preset.format = CliFormat::codex;
  script(1, R"({"type":"thread.started","thread_id":"th-1"}
{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'make test -k'","aggregated_output":"FAIL\n","exit_code":2,"status":"failed"}}
{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"Done."}}
{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":100}}
)");
  script(2, R"({"type":"thread.started","thread_id":"th-1"}
{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"Done again."}}
{"type":"turn.completed","usage":{"input_tokens":2500,"cached_input_tokens":0,"output_tokens":160}}
)");
  CommandAgent agent(runner, options);
  ASSERT_EQ(run(agent).stop, AgentStop::answered);
  // A command with a structured exit code is a `shell` call, evidence to the verifiers.
  ASSERT_EQ(observer.tool_calls.size(), 1U);
  EXPECT_EQ(observer.tool_calls[0].call.name, "shell");
  EXPECT_EQ(observer.tool_calls[0].result.exit_code, 2);
  EXPECT_EQ(observer.tool_calls[0].call.arguments, R"({"command":"/bin/bash -lc 'make test -k'"})");
  conversation.push_back(Message{.role = Role::user, .content = "still failing"});
  ASSERT_EQ(run(agent).stop, AgentStop::answered);
  EXPECT_THAT(argv_of(2), ElementsAre("-p", "--resume", "th-1"));
  ASSERT_EQ(observer.model_calls.size(), 2U);
  EXPECT_EQ(observer.model_calls[1].usage.input_tokens, 1500);
  EXPECT_EQ(observer.model_calls[1].usage.output_tokens, 60);
}

} // namespace
} // namespace ralph::agent
