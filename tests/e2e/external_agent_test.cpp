// `ralph run --agent NAME` through the real binary, with the fake agent CLI standing in for the
// CLIs that cannot run here and for misbehaviour no real CLI shows on demand.
#include "e2e_support.h"
#include "fake_agent_cli.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>

namespace ralph::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

class ExternalAgent : public ::testing::Test {
protected:
  ExternalAgent() : cli(home) {
    workspace.write("test.sh", k_test_script);
    workspace.write("add.sh", k_broken_add);
  }

  RalphOutput ralph(std::vector<std::string> args) {
    return run_ralph(args, workspace.path(), cli.env_map());
  }
  std::vector<std::string> argv_of(std::size_t invocation) const {
    const auto calls = cli.invocations();
    EXPECT_GT(calls.size(), invocation);
    return calls.size() > invocation ? calls[invocation]["argv"].get<std::vector<std::string>>()
                                     : std::vector<std::string>{};
  }
  std::string stdin_of(std::size_t invocation) const {
    const auto calls = cli.invocations();
    return calls.size() > invocation ? calls[invocation]["stdin"].get<std::string>() : "";
  }

  TempDir home;
  TempDir workspace;
  FakeAgentCli cli;
};

TEST_F(ExternalAgent, APrematureDoneIsCaughtAndTheResumedSessionFixesIt) {
  cli.script({FakeRun().session("g-1").say("All done."),
              FakeRun().session("g-1").write("add.sh", k_fixed_add).say("Fixed add.")});
  const RalphOutput out = ralph(
      {"run", "--agent", "gemini", "--verify-cmd", "sh test.sh", "--json", "make the test pass"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["status"], "completed");
  EXPECT_EQ(result["iterations"], 2);
  EXPECT_EQ(result["verified"], true);
  EXPECT_EQ(result["answer"], "Fixed add.");
  // `append`: the CLI's own session goes on, told only what failed.
  const auto resumed = argv_of(1);
  EXPECT_THAT(resumed, Contains("--resume"));
  EXPECT_THAT(resumed, Contains("g-1"));
  EXPECT_THAT(stdin_of(1), HasSubstr("FAIL: test_add"));
  EXPECT_THAT(stdin_of(1), Not(HasSubstr("make the test pass")));
}

TEST_F(ExternalAgent, TheJudgeChecksAnExternalAgentsAnswerToo) {
  FakeProviderServer judge;
  judge.push(FakeTurn{.text = "FAIL [incomplete]: add.sh still subtracts"});
  judge.push(FakeTurn{.text = "PASS"});
  cli.script({FakeRun().session("g-1").say("All done."),
              FakeRun().session("g-1").write("add.sh", k_fixed_add).say("Fixed add.")});
  std::map<std::string, std::string> env = cli.env_map();
  env["ANTHROPIC_API_KEY"] = "sk-ant-test-key";
  const RalphOutput out =
      run_ralph({"run", "--agent", "gemini", "--judge", "anthropic/judge-model", "--judge-base-url",
                 judge.base_url(), "--json", "make the test pass"},
                workspace.path(), env);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["iterations"], 2);
  EXPECT_EQ(result["verified"], true);
  ASSERT_EQ(result["verdicts"].size(), 2U);
  EXPECT_EQ(result["verdicts"][0]["verifier"], "judge");
  EXPECT_EQ(result["verdicts"][0]["category"], "incomplete");
  EXPECT_THAT(stdin_of(1), HasSubstr("add.sh still subtracts"));
  EXPECT_EQ(judge.requests().size(), 2U);
  // The agent's model setting is not the CLI's model: no warning about the judge's family.
  EXPECT_THAT(out.err, Not(HasSubstr("family")));
}

TEST_F(ExternalAgent, ContinueModeStartsAFreshProcessWithTheContinuationPrompt) {
  cli.script({FakeRun().session("g-1").say("All done."),
              FakeRun().session("g-2").write("add.sh", k_fixed_add).say("Fixed add.")});
  const RalphOutput out = ralph({"run", "--agent", "gemini", "--feedback", "continue",
                                 "--verify-cmd", "sh test.sh", "make the test pass"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(argv_of(1), Not(Contains("--resume")));
  EXPECT_THAT(stdin_of(1), HasSubstr("make the test pass"));
  EXPECT_THAT(stdin_of(1), HasSubstr("FAIL: test_add"));
}

TEST_F(ExternalAgent, AnAgentWithoutSessionsReadsTheFeedbackFromAFileToo) {
  cli.script({FakeRun().say("All done."), FakeRun().write("add.sh", k_fixed_add).say("Fixed.")});
  const RalphOutput out =
      ralph({"run", "--agent", "aider", "--verify-cmd", "sh test.sh", "make the test pass"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  // aider takes its prompt from a file.
  const auto first = argv_of(0);
  const auto file = std::find(first.begin(), first.end(), "--message-file");
  ASSERT_NE(file, first.end());
  ASSERT_NE(std::next(file), first.end());
  EXPECT_EQ(*std::next(file), (workspace.path() / ".ralph" / "prompt.md").string());
  const std::string feedback = workspace.read(".ralph/feedback.md");
  EXPECT_THAT(feedback, HasSubstr("FAIL: test_add"));
  EXPECT_THAT(feedback, HasSubstr("All done."));
  // The second attempt's prompt file held that same text.
  EXPECT_EQ(workspace.read(".ralph/prompt.md"), feedback);
  EXPECT_EQ(stdin_of(1), "");
}

TEST_F(ExternalAgent, EvidenceComesFromACommandTheCliReportsWithItsExitCode) {
  cli.script({FakeRun()
                  .write("add.sh", k_fixed_add)
                  .shell("sh test.sh")
                  .say("Fixed.\n<promise>DONE</promise>")});
  const RalphOutput out =
      ralph({"run", "--agent", "codex", "--verifier-first", "--json", "make the test pass"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["verified"], true);
  ASSERT_EQ(result["verdicts"].size(), 1U);
  EXPECT_EQ(result["verdicts"][0]["verifier"], "evidence");
  EXPECT_EQ(result["verdicts"][0]["result"], "pass");
  // The marker instructions reached the CLI, which reads no system prompt of ralph's.
  EXPECT_THAT(stdin_of(0), HasSubstr("<promise>DONE</promise>"));
}

TEST_F(ExternalAgent, ACrashIsARecordedFailureWithTheStderrTail) {
  cli.script({FakeRun().say("working").set("stderr", "panic: index out of range").end("crash")});
  const RalphOutput out = ralph({"run", "--agent", "goose", "--json", "fix it"});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["status"], "failed");
  EXPECT_THAT(out.err, HasSubstr("goose ended without its final result event"));
  EXPECT_THAT(out.err, HasSubstr("panic: index out of range"));
  const auto shown = show_session(result["session_id"], workspace.path());
  EXPECT_EQ(shown["status"], "failed");
}

TEST_F(ExternalAgent, AnErrorEventWithExitCodeZeroIsAFailure) {
  cli.script({FakeRun().say("trying").end("error")});
  const RalphOutput out = ralph({"run", "--agent", "goose", "fix it"});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  EXPECT_THAT(out.err, HasSubstr("goose reported an error (exit code 0)"));
}

TEST_F(ExternalAgent, AMissingTerminalEventIsAFailure) {
  cli.script({FakeRun().say("All done.").end("no_terminal")});
  const RalphOutput out = ralph({"run", "--agent", "gemini", "fix it"});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  EXPECT_THAT(out.err, HasSubstr("gemini ended without its final result event (exit code 0)"));
}

TEST_F(ExternalAgent, AMissingBinaryIsAFailureNamingIt) {
  const RalphOutput out = run_ralph({"run", "--agent", "gemini", "fix it"}, workspace.path(),
                                    {{"PATH", "/nonexistent"}});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  EXPECT_THAT(out.err, HasSubstr("gemini could not be started"));
  // How to install it, by its npm package.
  EXPECT_THAT(out.err, HasSubstr("install it with `npm install -g @google/gemini-cli`"));
}

TEST_F(ExternalAgent, SilenceEndsTheAttemptAtTheIdleLimit) {
  cli.script({FakeRun().say("thinking").end("hang")});
  const RalphOutput out =
      ralph({"run", "--agent", "gemini", "--agent-idle-timeout", "1", "fix it"});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  EXPECT_THAT(out.err, HasSubstr("gemini printed nothing for 1s (agent.idle_timeout)"));
}

TEST_F(ExternalAgent, ChatterEndsTheAttemptAtItsTimeLimit) {
  cli.script({FakeRun().say("looping").end("chatter")});
  const RalphOutput out = ralph({"run", "--agent", "gemini", "--agent-timeout", "2", "fix it"});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  EXPECT_THAT(out.err, HasSubstr("gemini did not finish within 2s (agent.timeout)"));
}

TEST_F(ExternalAgent, CtrlCKillsTheCliWithEverythingItStarted) {
  const auto pid_file = home.path() / "grandchild.pid";
  cli.script({FakeRun().set("spawn_background", pid_file.string()).end("hang")});
  RalphProcess ralph_process({"run", "--agent", "gemini", "fix it"}, workspace.path(),
                             cli.env_map());
  ASSERT_TRUE(eventually([&] { return std::filesystem::exists(pid_file); }));
  pid_t grandchild = 0;
  ASSERT_TRUE(eventually([&] {
    std::ifstream(pid_file) >> grandchild;
    return grandchild > 0;
  }));
  ralph_process.signal(SIGINT);
  const RalphOutput out = ralph_process.wait();
  EXPECT_EQ(out.exit_code, 130) << out.err;
  EXPECT_TRUE(eventually([&] { return ::kill(grandchild, 0) != 0; }));
}

TEST_F(ExternalAgent, AnInterruptedSessionResumesWithTheGoalAndTheFeedback) {
  cli.script({FakeRun().session("g-1").say("All done."), FakeRun().session("g-1").end("hang"),
              FakeRun().session("g-2").write("add.sh", k_fixed_add).say("Fixed add.")});
  std::string id;
  {
    RalphProcess process(
        {"run", "--agent", "gemini", "--verify-cmd", "sh test.sh", "--json", "make the test pass"},
        workspace.path(), cli.env_map());
    // Its log line is written once it has read its prompt: the CLI is then at work.
    ASSERT_TRUE(eventually([&] { return cli.invocations().size() == 2; }));
    process.signal(SIGINT);
    const RalphOutput out = process.wait();
    ASSERT_EQ(out.exit_code, 130) << out.err;
    id = parse_output(out)["session_id"];
  }
  const RalphOutput out = ralph({"sessions", "resume", id, "--yes", "--json"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(parse_output(out)["status"], "completed");
  EXPECT_EQ(workspace.read("add.sh"), k_fixed_add);
  // A new ralph process does not know the CLI's session: a fresh one gets the goal and what
  // failed.
  EXPECT_THAT(stdin_of(2), HasSubstr("make the test pass"));
  EXPECT_THAT(stdin_of(2), HasSubstr("FAIL: test_add"));
  EXPECT_EQ(show_session(id, workspace.path())["status"], "completed");
}

TEST_F(ExternalAgent, TheReportedCostCountsAgainstTheBudgetAndWhatIsLeftIsPassedOn) {
  cli.script({FakeRun().session("c-1").say("All done.").cost(0.6),
              FakeRun().session("c-1").say("Still done.").cost(0.6)});
  const RalphOutput out = ralph({"run", "--agent", "claude", "--verify-cmd", "sh test.sh",
                                 "--cost-budget", "1", "--json", "make the test pass"});
  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["status"], "budget_exhausted");
  // The first process may spend the whole budget; the second what is left of it.
  EXPECT_THAT(argv_of(0), Contains("1.0000"));
  EXPECT_THAT(argv_of(1), Contains("0.4000"));
}

TEST_F(ExternalAgent, TheTimeBudgetStopsACliThatWorksOn) {
  cli.script({FakeRun().say("working on it").end("chatter")});
  const RalphOutput out =
      ralph({"run", "--agent", "gemini", "--time-budget", "2", "--json", "fix it"});
  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["status"], "budget_exhausted");
  EXPECT_THAT(result["reason"].get<std::string>(), HasSubstr("time budget ran out"));
}

TEST_F(ExternalAgent, AnyProgramCanBeTheAgent) {
  const RalphOutput out = ralph(
      {"run", "--agent-cmd", "cat {prompt_file} > seen.txt; . ./add.sh; echo \"sum $(add 2 3)\"",
       "--json", "add two and three"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(parse_output(out)["answer"], "sum -1");
  EXPECT_EQ(workspace.read("seen.txt"), "add two and three");
}

TEST_F(ExternalAgent, AnUnknownAgentIsAConfigurationErrorNamingTheKnownOnes) {
  const RalphOutput out = ralph({"run", "--agent", "clippy", "fix it"});
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_THAT(out.err, HasSubstr("unknown agent 'clippy'"));
  EXPECT_THAT(out.err, HasSubstr("claude, codex"));
}

TEST_F(ExternalAgent, VerifierFirstIsRefusedForACliThatReportsNoExitCodes) {
  // Gemini CLI's tool results carry no exit code: no check it ran could ever be evidence, so the
  // run is refused before the CLI starts or a session is recorded.
  cli.script({FakeRun().shell("sh test.sh").say("Fixed.\n<promise>DONE</promise>")});
  const RalphOutput out =
      ralph({"run", "--agent", "gemini", "--verifier-first", "make the test pass"});
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_THAT(out.err, HasSubstr("evidence.enabled (--verifier-first): gemini reports no exit "
                                 "codes of the commands it runs"));
  EXPECT_THAT(out.err, HasSubstr("--verify-cmd"));
  EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  EXPECT_TRUE(cli.invocations().empty());
  const RalphOutput sessions = ralph({"sessions", "list", "--json"});
  EXPECT_EQ(sessions.exit_code, 0) << sessions.err;
  EXPECT_EQ(parse_output(sessions).size(), 0U) << sessions.out;
}

} // namespace
} // namespace ralph::testing
