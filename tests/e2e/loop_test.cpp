// The outer verification loop end to end: `ralph run` with verifiers, against fake provider
// servers for the agent and the judge, with real commands in a temporary workspace.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

class LoopEndToEnd : public ::testing::Test {
protected:
  LoopEndToEnd() { workspace.write("test.sh", k_test_script); }

  std::vector<std::string> args(std::vector<std::string> extra) const {
    std::vector<std::string> all{
        "run",        "make add.sh add",        "--model",     "openai-compat/agent-model",
        "--base-url", agent.base_url() + "/v1", "--workspace", workspace.path().string(),
        "--json"};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  std::vector<std::string> with_judge(std::vector<std::string> extra) const {
    std::vector<std::string> all{"--judge", "anthropic/judge-model", "--judge-base-url",
                                 judge.base_url()};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  RalphOutput run(std::vector<std::string> extra) const {
    return run_ralph(args(std::move(extra)), cwd.path(),
                     {{"ANTHROPIC_API_KEY", "sk-ant-test-key"}});
  }
  // The messages the agent's model received on its `n`th request.
  json agent_messages(std::size_t n) const {
    return json::parse(agent.requests().at(n).body)["messages"];
  }

  FakeProviderServer agent;
  FakeProviderServer judge;
  TempDir workspace;
  TempDir cwd;
};

TEST_F(LoopEndToEnd, PassesFirstTime) {
  agent.push(write_add(k_fixed_add));
  agent.push(text_turn("add.sh adds."));

  const auto out = run({"--verify-cmd", "sh test.sh"});

  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["status"], "completed");
  EXPECT_EQ(result["iterations"], 1);
  ASSERT_EQ(result["verdicts"].size(), 1u);
  EXPECT_EQ(result["verdicts"][0]["verifier"], "command: sh test.sh");
  EXPECT_EQ(result["verdicts"][0]["result"], "pass");
  EXPECT_EQ(result["verdicts"][0]["evidence"]["exit_code"], 0);
}

TEST_F(LoopEndToEnd, FailingCommandIsFedBackAndTheSecondAttemptPasses) {
  agent.push(write_add(k_broken_add));
  agent.push(text_turn("Done, add.sh is written."));
  agent.push(write_add(k_fixed_add));
  agent.push(text_turn("Fixed the operator."));

  const auto out = run({"--verify-cmd", "sh test.sh", "--max-iterations", "5"});

  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["status"], "completed");
  EXPECT_EQ(result["iterations"], 2);
  EXPECT_EQ(result["answer"], "Fixed the operator.");
  EXPECT_EQ(result["verdicts"][0]["result"], "fail");
  EXPECT_EQ(result["verdicts"][0]["category"], "test_failed");
  EXPECT_EQ(result["verdicts"][1]["result"], "pass");
  // The third request (the second attempt's first) carries the excerpted failure.
  const auto messages = agent_messages(2);
  const std::string feedback = messages.back()["content"];
  EXPECT_EQ(messages.back()["role"], "user");
  EXPECT_THAT(feedback, HasSubstr("FAIL: test_add: expected 5, got -1"));
  EXPECT_THAT(feedback, HasSubstr("exit code 1"));
  EXPECT_THAT(out.err, HasSubstr("attempt 2 of 5"));
}

TEST_F(LoopEndToEnd, IterationsRunOutWithTheNoticeAndExitCode3) {
  for (int i = 0; i < 2; ++i) {
    agent.push(write_add(k_broken_add));
    agent.push(text_turn("Done."));
  }

  const auto out = run({"--verify-cmd", "sh test.sh", "--max-iterations", "2"});

  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["status"], "budget_exhausted");
  const std::string answer = result["answer"];
  EXPECT_THAT(answer, HasSubstr("ralph stopped after 2 attempts"));
  EXPECT_THAT(answer, HasSubstr("Last verifier evidence:"));
  EXPECT_THAT(answer, HasSubstr("FAIL: test_add"));
}

TEST_F(LoopEndToEnd, FewerFailingTestsAreShownAndTheRepeatedAnswerIsNotAStall) {
  // check.sh prints what real pytest runs printed, one per attempt: 3 failing, 2, then none.
  workspace.write("check.sh",
                  "n=$(cat .round 2>/dev/null || echo 0); echo $((n + 1)) > .round\n"
                  "set -- pytest_fail3 pytest_fail2 pytest_pass; shift \"$n\"\n"
                  "cat \"" RALPH_SOURCE_DIR "/tests/verify/fixtures/test_runners/$1.txt\"\n"
                  "[ \"$1\" = pytest_pass ]\n");
  for (int i = 0; i < 3; ++i) {
    agent.push(text_turn("Done."));
  }
  const std::string events = (cwd.path() / "events.ndjson").string();

  const auto out =
      run({"--verify-cmd", "sh check.sh", "--max-iterations", "5", "--events", events});

  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["status"], "completed");
  EXPECT_EQ(result["iterations"], 3);
  EXPECT_EQ(result["verdicts"][1]["tests"],
            json({{"runner", "pytest"}, {"failed", 2}, {"passed", 4}, {"total", 6}}));
  EXPECT_THAT(out.err, HasSubstr("failing: 3 of 6 (pytest)"));
  EXPECT_THAT(out.err, HasSubstr("failing: 3 → 2 of 6 (pytest)"));
  EXPECT_THAT(out.err, HasSubstr("failing: 2 → 0 of 6 (pytest)"));
  std::ifstream lines(events);
  std::vector<int> before;
  for (std::string line; std::getline(lines, line);) {
    const json event = json::parse(line);
    if (event["type"] == "verdict") {
      before.push_back(event["tests"].value("failed_before", -1));
    }
  }
  EXPECT_EQ(before, (std::vector<int>{-1, 3, 2}));
}

TEST_F(LoopEndToEnd, CountsTheRunnerDoesNotGiveStayUnknown) {
  // What real `go test ./...` runs printed: without -v it names the failing tests and says "ok"
  // for a passing package, never how many tests passed or ran.
  workspace.write("check.sh",
                  "n=$(cat .round 2>/dev/null || echo 0); echo $((n + 1)) > .round\n"
                  "set -- go_fail3 go_fail1; shift \"$n\"\n"
                  "cat \"" RALPH_SOURCE_DIR "/tests/verify/fixtures/test_runners/$1.txt\"\n"
                  "exit 1\n");
  agent.push(text_turn("Fixed two."));
  agent.push(text_turn("Fixed one more."));

  const auto out = run({"--verify-cmd", "sh check.sh", "--max-iterations", "2"});

  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["verdicts"][1]["tests"],
            json({{"runner", "go test"}, {"failed", 1}, {"passed", nullptr}, {"total", nullptr}}));
  // Whole lines: no "of N" after the counts.
  EXPECT_THAT(out.err, HasSubstr("    failing: 3 (go test)\n"));
  EXPECT_THAT(out.err, HasSubstr("    failing: 3 → 1 (go test)\n"));
  const std::string feedback = agent_messages(1).back()["content"];
  EXPECT_THAT(feedback, HasSubstr("(go test: 3 failed)"));
  EXPECT_THAT(feedback, Not(HasSubstr(" passed,")));
  EXPECT_THAT(feedback, Not(HasSubstr(" total")));
  EXPECT_THAT(result["verdicts"][1]["feedback"].get<std::string>(),
              HasSubstr("(go test: 1 failed)"));
}

TEST_F(LoopEndToEnd, JunitReportsNamedWithTheFlagGiveTheCounts) {
  workspace.write("check.sh",
                  "mkdir -p reports\ncp \"" RALPH_SOURCE_DIR
                  "/tests/verify/fixtures/test_runners/junit_ctest_fail3.xml\" reports/\n"
                  "echo 'some tests failed'; exit 1\n");
  agent.push(text_turn("Done."));

  const auto out =
      run({"--verify-cmd", "sh check.sh", "--junit", "reports/*.xml", "--max-iterations", "1"});

  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["verdicts"][0]["tests"],
            json({{"runner", "JUnit XML"}, {"failed", 3}, {"passed", 2}, {"total", 5}}));
  EXPECT_THAT(out.err, HasSubstr("failing: 3 of 5 (JUnit XML)"));
}

TEST_F(LoopEndToEnd, CommandThatCannotRunIsAnErrorNotAFailure) {
  agent.push(text_turn("Done."));
  const auto out = run({"--verify-cmd", "no-such-command-xyz --check", "--max-iterations", "1"});
  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto verdict = parse_output(out)["verdicts"][0];
  EXPECT_EQ(verdict["result"], "error");
  EXPECT_EQ(verdict["category"], "not_runnable");
  EXPECT_EQ(verdict["policy"], "fail_closed");
}

TEST_F(LoopEndToEnd, JudgePassCompletes) {
  agent.push(text_turn("Release notes: fixed the parser."));
  judge.push(text_turn("Goal achieved, complete, no rules broken.\nPASS"));

  const auto out = run(with_judge({}));

  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["verdicts"][0]["verifier"], "judge");
  EXPECT_EQ(result["verdicts"][0]["result"], "pass");
  // The judge saw the request and the answer, with no tools and temperature 0.
  const auto request = json::parse(judge.requests().at(0).body);
  EXPECT_EQ(judge.requests()[0].path, "/v1/messages");
  EXPECT_FALSE(request.contains("tools"));
  EXPECT_EQ(request["temperature"], 0.0);
  EXPECT_EQ(request["max_tokens"], 512);
  const std::string prompt = request["messages"][0]["content"].is_string()
                                 ? request["messages"][0]["content"].get<std::string>()
                                 : request["messages"][0]["content"][0]["text"].get<std::string>();
  EXPECT_THAT(prompt, HasSubstr("make add.sh add"));
  EXPECT_THAT(prompt, HasSubstr("Release notes: fixed the parser."));
  EXPECT_LT(prompt.find("make add.sh add"), prompt.find("Release notes: fixed the parser."))
      << "the request comes first, the answer last";
}

TEST_F(LoopEndToEnd, JudgeFailWithCategoryIsFedBack) {
  agent.push(text_turn("Notes: stuff changed."));
  judge.push(text_turn("The notes do not name the fixed bug.\nFAIL [incomplete]: name the parser "
                       "bug that was fixed"));
  agent.push(text_turn("Notes: fixed the parser crash on empty input (#12)."));
  judge.push(text_turn("PASS"));

  const auto out = run(with_judge({}));

  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["verdicts"][0]["category"], "incomplete");
  const std::string feedback = agent_messages(1).back()["content"];
  EXPECT_THAT(feedback, HasSubstr("[judge] fail incomplete"));
  EXPECT_THAT(feedback, HasSubstr("name the parser bug that was fixed"));
}

TEST_F(LoopEndToEnd, MalformedJudgeOutputIsAnErrorUnderBothPolicies) {
  agent.push(text_turn("Answer."));
  judge.push(text_turn("Looks reasonable to me overall."));
  const auto open = run(with_judge({}));
  EXPECT_EQ(open.exit_code, 0) << open.err << " fail_open delivers the answer";
  EXPECT_EQ(parse_output(open)["verdicts"][0]["result"], "error");
  EXPECT_EQ(parse_output(open)["verdicts"][0]["policy"], "fail_open");

  workspace.write(".ralph/config.toml", "[judge]\npolicy = \"fail_closed\"\n");
  agent.push(text_turn("Answer."));
  judge.push(text_turn("Looks reasonable to me overall."));
  const auto closed = run(with_judge({"--max-iterations", "1"}));
  EXPECT_EQ(closed.exit_code, 3) << closed.err;
  EXPECT_EQ(parse_output(closed)["verdicts"][0]["policy"], "fail_closed");
}

TEST_F(LoopEndToEnd, AnAnswerOnlyAFailOpenErrorLetThroughIsDeliveredUnverified) {
  agent.push(text_turn("Answer."));
  judge.push(text_turn("Looks reasonable to me overall."));
  std::vector<std::string> plain = args(with_judge({}));
  plain.erase(std::find(plain.begin(), plain.end(), "--json"));
  const auto shown = run_ralph(plain, cwd.path(), {{"ANTHROPIC_API_KEY", "sk-ant-test-key"}});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_THAT(shown.err, HasSubstr("completed · delivered unverified: judge error (malformed), "
                                   "fail_open"));
  EXPECT_THAT(shown.err, Not(HasSubstr("verified on attempt")));

  agent.push(text_turn("Answer."));
  judge.push(text_turn("Looks reasonable to me overall."));
  const auto out = parse_output(run(with_judge({})));
  EXPECT_EQ(out["status"], "completed");
  EXPECT_EQ(out["verified"], false);
  EXPECT_EQ(out["reason"], "delivered unverified: judge error (malformed), fail_open");

  const auto listed =
      run_ralph({"sessions", "list", "--workspace", workspace.path().string()}, cwd.path());
  EXPECT_THAT(listed.out, HasSubstr("completed, unverified")) << listed.err;
  const auto show = run_ralph({"sessions", "show", out["session_id"].get<std::string>(),
                               "--workspace", workspace.path().string(), "--json"},
                              cwd.path());
  EXPECT_EQ(json::parse(show.out)["verified"], false) << show.err;
}

TEST_F(LoopEndToEnd, APassingJudgeVerifies) {
  agent.push(text_turn("Answer."));
  judge.push(text_turn("PASS"));
  const auto out = parse_output(run(with_judge({})));
  EXPECT_EQ(out["verified"], true);
  EXPECT_EQ(out["reason"], "verified on attempt 1");
}

TEST_F(LoopEndToEnd, WithoutReportedUsageTokensAreEstimatedAndTheBudgetHolds) {
  // A server that reports no usage: before, the counts stayed 0 and the budget never fired.
  for (int i = 0; i < 4; ++i) {
    FakeTurn turn = tool_turn("shell", {{"command", "echo step"}});
    turn.no_usage = true;
    agent.push(turn);
  }
  const auto events_path = cwd.path() / "events.ndjson";
  std::vector<std::string> plain =
      args({"--token-budget", "300", "--max-steps", "4", "--events", events_path.string()});
  plain.erase(std::find(plain.begin(), plain.end(), "--json"));
  const auto shown = run_ralph(plain, cwd.path());
  EXPECT_EQ(shown.exit_code, 3) << shown.err;
  EXPECT_THAT(shown.err, HasSubstr("token budget ran out"));
  EXPECT_THAT(shown.err, HasSubstr("(estimated)"));
  const std::string warning = "reports no token usage";
  const auto first = shown.err.find(warning);
  ASSERT_NE(first, std::string::npos) << shown.err;
  EXPECT_EQ(shown.err.find(warning, first + 1), std::string::npos) << "warned once";
  EXPECT_LT(agent.requests().size(), 4u) << "the budget stopped the attempt";
  EXPECT_THAT(cwd.read("events.ndjson"), HasSubstr(R"("estimated":true)"));

  FakeTurn answer = text_turn("Done.");
  answer.no_usage = true;
  agent.push(answer);
  const auto out = parse_output(run({}));
  EXPECT_GT(out["usage"]["input_tokens"].get<int>(), 0);
  EXPECT_EQ(out["usage"]["estimated"], true);
}

TEST_F(LoopEndToEnd, ContradictoryJudgeOutputIsNeverAPass) {
  agent.push(text_turn("Answer."));
  judge.push(text_turn("PASS\nOn reflection:\nFAIL [goal_missed]: it answers another question"));
  workspace.write(".ralph/config.toml", "[judge]\npolicy = \"fail_closed\"\n");
  const auto out = run(with_judge({"--max-iterations", "1"}));
  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto verdict = parse_output(out)["verdicts"][0];
  EXPECT_EQ(verdict["result"], "error");
  EXPECT_THAT(verdict["feedback"].get<std::string>(), HasSubstr("contradict"));
}

TEST_F(LoopEndToEnd, JudgeTimeoutUnderBothPolicies) {
  FakeTurn slow = text_turn("PASS");
  slow.fault = Fault::slow_first_byte;
  slow.first_byte_delay = std::chrono::seconds(60);
  workspace.write(".ralph/config.toml", "[judge]\ntimeout = 1\n");
  agent.push(text_turn("Answer."));
  judge.push(slow);
  const auto open = run(with_judge({}));
  EXPECT_EQ(open.exit_code, 0) << open.err;
  EXPECT_EQ(parse_output(open)["verdicts"][0]["category"], "timeout");

  workspace.write(".ralph/config.toml", "[judge]\ntimeout = 1\npolicy = \"fail_closed\"\n");
  agent.push(text_turn("Answer."));
  judge.push(slow);
  const auto closed = run(with_judge({"--max-iterations", "1"}));
  EXPECT_EQ(closed.exit_code, 3) << closed.err;
  EXPECT_EQ(parse_output(closed)["verdicts"][0]["category"], "timeout");
}

TEST_F(LoopEndToEnd, VerifierFirstRejectsAMarkerWithoutEvidence) {
  agent.push(write_add(k_fixed_add));
  agent.push(text_turn("Done.\n<promise>DONE</promise>"));
  agent.push(tool_turn("shell", {{"command", "sh test.sh"}}));
  agent.push(text_turn("Tests pass.\n<promise>DONE</promise>"));

  const auto out = run({"--verifier-first"});

  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["iterations"], 2);
  EXPECT_EQ(result["verdicts"][0]["category"], "no_evidence");
  EXPECT_EQ(result["verdicts"][1]["result"], "pass");
  EXPECT_EQ(result["answer"], "Tests pass.") << "the marker is stripped";
  // The agent was told the completion rule.
  const auto first = json::parse(agent.requests()[0].body);
  EXPECT_THAT(first["messages"][0]["content"].get<std::string>(),
              HasSubstr("<promise>DONE</promise>"));
}

TEST_F(LoopEndToEnd, VerifierFirstRejectsStaleEvidence) {
  agent.push(write_add(k_fixed_add));
  agent.push(tool_turn("shell", {{"command", "sh test.sh"}}));
  agent.push(write_add(k_broken_add)); // a change after the check
  agent.push(text_turn("All good.\n<promise>DONE</promise>"));

  const auto out = run({"--verifier-first", "--max-iterations", "1"});

  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto verdict = parse_output(out)["verdicts"][0];
  EXPECT_EQ(verdict["category"], "no_evidence");
  EXPECT_THAT(verdict["feedback"].get<std::string>(), HasSubstr("stale"));
}

TEST_F(LoopEndToEnd, VerifierFirstIgnoresAMarkerEchoedFromThePrompt) {
  agent.push(tool_turn("shell", {{"command", "sh test.sh || true"}}));
  agent.push(text_turn("My instructions say to put the completion marker <promise>DONE</promise> "
                       "alone on the last line when done."));

  const auto out = run({"--verifier-first", "--max-iterations", "1"});

  EXPECT_EQ(out.exit_code, 3) << out.err;
  EXPECT_EQ(parse_output(out)["verdicts"][0]["category"], "incomplete");
}

TEST_F(LoopEndToEnd, VerifierFirstWithAVerifyCommandRunsItToo) {
  agent.push(write_add(k_broken_add));
  agent.push(tool_turn("shell", {{"command", "echo tests pass"}}));
  agent.push(text_turn("Done.\n<promise>DONE</promise>"));

  const auto out = run({"--verifier-first", "--verify-cmd", "sh test.sh", "--max-iterations", "1"});

  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto verdicts = parse_output(out)["verdicts"];
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_EQ(verdicts[0]["verifier"], "command: sh test.sh");
  EXPECT_EQ(verdicts[0]["result"], "fail");
  EXPECT_EQ(verdicts[1]["verifier"], "evidence");
  EXPECT_EQ(verdicts[1]["category"], "no_evidence") << "`echo` is not a run of the check";
}

TEST_F(LoopEndToEnd, EditingAProtectedFileIsARuleViolation) {
  agent.push(tool_turn("write_file", {{"path", "test.sh"}, {"content", "exit 0\n"}}));
  agent.push(text_turn("Made the test pass."));

  const auto out =
      run({"--verify-cmd", "sh test.sh", "--protect", "test.sh", "--max-iterations", "1"});

  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto verdicts = parse_output(out)["verdicts"];
  EXPECT_EQ(verdicts[0]["verifier"], "protected paths");
  EXPECT_EQ(verdicts[0]["category"], "rule_violation");
  EXPECT_THAT(verdicts[0]["feedback"].get<std::string>(), HasSubstr("test.sh (modified)"));
  EXPECT_EQ(verdicts[1]["result"], "pass") << "the weakened test itself passes";
}

TEST_F(LoopEndToEnd, SameAnswerAndVerdictTwiceIsStalled) {
  for (int i = 0; i < 3; ++i) {
    agent.push(text_turn("I cannot see a problem."));
  }
  const auto out = run({"--verify-cmd", "sh test.sh", "--max-iterations", "5"});
  EXPECT_EQ(out.exit_code, 5) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["status"], "stalled");
  EXPECT_EQ(result["iterations"], 2);
}

TEST_F(LoopEndToEnd, FlakyCommandPassesWithReruns) {
  // Fails on its first two runs, passes on the third.
  workspace.write("flaky.sh", "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count;"
                              " [ $n -ge 3 ] || { echo \"FAIL: flaky run $n\"; exit 1; }\n");
  agent.push(text_turn("Done."));

  const auto out = run({"--verify-cmd", "sh flaky.sh", "--reruns", "3", "--quorum", "1"});

  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto evidence = parse_output(out)["verdicts"][0]["evidence"];
  EXPECT_EQ(evidence["runs"], 3);
  EXPECT_EQ(evidence["passes"], 1);
}

TEST_F(LoopEndToEnd, KeywordTriggerMatchesSpecialCharactersLiterally) {
  agent.push(text_turn("Ported the module to C++20."));
  const auto hit = run({"--verify-cmd", "sh test.sh", "--trigger", "keywords", "--keyword", "c++",
                        "--max-iterations", "1"});
  EXPECT_EQ(hit.exit_code, 3) << "c++ matched, so the failing test ran";
  EXPECT_EQ(parse_output(hit)["verdicts"].size(), 1u);

  agent.push(text_turn("Ported the module to C."));
  const auto miss = run({"--verify-cmd", "sh test.sh", "--trigger", "keywords", "--keyword", "c++",
                         "--keyword", "done"});
  EXPECT_EQ(miss.exit_code, 0) << miss.err;
  const auto result = parse_output(miss);
  EXPECT_TRUE(result["verdicts"].empty());
  EXPECT_THAT(result["reason"].get<std::string>(), HasSubstr("unverified"));
}

TEST_F(LoopEndToEnd, AppendKeepsTheHistoryAndContinueReplacesIt) {
  agent.push(write_add(k_broken_add));
  agent.push(text_turn("Done."));
  agent.push(write_add(k_fixed_add));
  agent.push(text_turn("Fixed."));
  ASSERT_EQ(run({"--verify-cmd", "sh test.sh", "--feedback", "append"}).exit_code, 0);
  const auto appended = agent_messages(2);
  EXPECT_EQ(appended[0]["role"], "system");
  EXPECT_EQ(appended[1]["content"], "make add.sh add");
  EXPECT_EQ(appended.size(), 6u) << "system, goal, tool call, result, answer, feedback";

  agent.push(write_add(k_broken_add));
  agent.push(text_turn("Done."));
  agent.push(write_add(k_fixed_add));
  agent.push(text_turn("Fixed."));
  ASSERT_EQ(run({"--verify-cmd", "sh test.sh", "--feedback", "continue"}).exit_code, 0);
  const auto continued = agent_messages(6);
  ASSERT_EQ(continued.size(), 2u) << "the system prompt and the continuation only";
  const std::string prompt = continued[1]["content"];
  EXPECT_THAT(prompt, HasSubstr("Objective:\nmake add.sh add"));
  EXPECT_THAT(prompt, HasSubstr("Iteration 2 of 3"));
  EXPECT_THAT(prompt, HasSubstr("write_file"));
  EXPECT_THAT(prompt, HasSubstr("FAIL: test_add"));
  EXPECT_THAT(prompt, HasSubstr("Plan -> Act -> Verify -> Reflect -> Retry"));
}

TEST_F(LoopEndToEnd, TokenBudgetCountsTheJudge) {
  // A first run measures what the agent's call and the judge's call each cost.
  const auto events_path = cwd.path() / "calibration.ndjson";
  agent.push(text_turn("Answer one."));
  judge.push(text_turn("PASS"));
  ASSERT_EQ(run(with_judge({"--events", events_path.string()})).exit_code, 0);
  std::int64_t agent_tokens = 0;
  std::int64_t judge_tokens = 0;
  std::istringstream lines(cwd.read("calibration.ndjson"));
  for (std::string line; std::getline(lines, line);) {
    const auto event = json::parse(line);
    if (!event.contains("usage")) {
      continue;
    }
    const auto tokens = event["usage"]["input_tokens"].get<std::int64_t>() +
                        event["usage"]["output_tokens"].get<std::int64_t>();
    if (event["type"] == "model_finished") {
      agent_tokens += tokens;
    } else if (event["type"] == "verdict") {
      judge_tokens += tokens;
    }
  }
  ASSERT_GT(agent_tokens, 0);
  ASSERT_GT(judge_tokens, 0);

  // The agent's call alone fits; with the judge's it does not, so a failing first verdict ends
  // the run instead of starting a second attempt.
  agent.push(text_turn("Answer one."));
  judge.push(text_turn("FAIL [incomplete]: more"));
  agent.push(text_turn("Answer two."));
  judge.push(text_turn("PASS"));
  const std::string budget = std::to_string(agent_tokens + judge_tokens / 2);
  const auto out = run(with_judge({"--token-budget", budget, "--max-iterations", "5"}));
  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["iterations"], 1);
  EXPECT_THAT(result["answer"].get<std::string>(), HasSubstr("token budget ran out"));
}

TEST_F(LoopEndToEnd, CostBudgetNeedsPricesAndStops) {
  agent.push(text_turn("x"));
  const auto unpriced = run({"--verify-cmd", "sh test.sh", "--cost-budget", "0.01"});
  EXPECT_EQ(unpriced.exit_code, 2);
  EXPECT_THAT(unpriced.err, HasSubstr("[prices] has no entry for openai-compat/agent-model"));

  workspace.write(".ralph/config.toml",
                  "[prices.\"openai-compat/agent-model\"]\ninput = 100000\noutput = 100000\n");
  const auto out =
      run({"--verify-cmd", "sh test.sh", "--cost-budget", "0.01", "--max-iterations", "5"});
  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["iterations"], 1);
  EXPECT_GT(result["cost_usd"].get<double>(), 0.01);
  EXPECT_THAT(result["answer"].get<std::string>(), HasSubstr("cost budget ran out"));
}

TEST_F(LoopEndToEnd, TimeBudgetStopsASlowModel) {
  FakeTurn slow = text_turn("too late");
  slow.fault = Fault::slow_first_byte;
  slow.first_byte_delay = std::chrono::seconds(60);
  agent.push(slow);
  const auto out = run({"--verify-cmd", "sh test.sh", "--time-budget", "1s"});
  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["status"], "budget_exhausted");
  EXPECT_THAT(result["reason"].get<std::string>(), HasSubstr("time"));
}

TEST_F(LoopEndToEnd, EventsFileHasOneFlushedJsonLinePerEvent) {
  agent.push(write_add(k_broken_add));
  agent.push(text_turn("Done."));
  agent.push(write_add(k_fixed_add));
  agent.push(text_turn("Fixed."));
  const auto events_path = cwd.path() / "events.ndjson";

  const auto out = run({"--verify-cmd", "sh test.sh", "--events", events_path.string()});

  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::string session = parse_output(out)["session_id"];
  std::istringstream lines(cwd.read("events.ndjson"));
  std::vector<std::string> types;
  for (std::string line; std::getline(lines, line);) {
    const auto event = json::parse(line);
    EXPECT_EQ(event["session"], session);
    types.push_back(event["type"]);
    if (event["type"] == "verdict" && event["iteration"] == 1) {
      EXPECT_EQ(event["result"], "fail");
      EXPECT_EQ(event["exit_code"], 1);
      EXPECT_EQ(event["verifier"], "command: sh test.sh");
      EXPECT_EQ(event["category"], "test_failed");
    }
    if (event["type"] == "tool_finished") {
      EXPECT_TRUE(event.contains("name")) << line;
      EXPECT_TRUE(event.contains("tool_call_id")) << line;
    }
  }
  const auto has = [&](const std::string& type) {
    return std::find(types.begin(), types.end(), type) != types.end();
  };
  for (const char* type : {"attempt_started", "tool_started", "tool_finished", "model_finished",
                           "verifier_started", "verdict", "feedback", "attempt_finished"}) {
    EXPECT_TRUE(has(type)) << type;
  }
  EXPECT_EQ(types.front(), "attempt_started");
  EXPECT_EQ(types.back(), "status");
}

TEST_F(LoopEndToEnd, ExternalVerifierProgramGetsTheAttemptAndGivesTheVerdict) {
  workspace.write("verdict.sh",
                  "cat > attempt.json\n"
                  "if grep -q 'forty-two' attempt.json; then echo '{\"result\":\"pass\"}';\n"
                  "else echo '{\"result\":\"fail\",\"category\":\"goal_missed\",\"feedback\":"
                  "\"say forty-two\"}'; fi\n");
  agent.push(text_turn("The answer is 41."));
  agent.push(text_turn("The answer is forty-two."));

  const auto out = run({"--verify-exec", "sh verdict.sh"});

  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = parse_output(out);
  EXPECT_EQ(result["verdicts"][0]["category"], "goal_missed");
  EXPECT_EQ(result["verdicts"][1]["result"], "pass");
  const auto attempt = json::parse(workspace.read("attempt.json"));
  EXPECT_EQ(attempt["iteration"], 2);
  EXPECT_EQ(attempt["goal"], "make add.sh add");
  EXPECT_EQ(attempt["previous_feedback"].size(), 1u);
}

TEST_F(LoopEndToEnd, TheRulesFilesReachTheAgentAndTheJudgeKeepsTheUsersCopy) {
  workspace.write("AGENTS.md", "RULE-ORIGINAL: every answer names the file it changed.\n");
  agent.push(tool_turn("write_file", {{"path", "AGENTS.md"}, {"content", "RULE-REWRITTEN\n"}}));
  agent.push(text_turn("Changed add.sh."));
  judge.push(text_turn("PASS"));
  const auto out = run(with_judge({}));
  ASSERT_EQ(out.exit_code, 0) << out.err;

  const auto system = json::parse(agent.requests().at(0).body)["messages"][0];
  EXPECT_EQ(system["role"], "system");
  EXPECT_THAT(system["content"].get<std::string>(), HasSubstr("RULE-ORIGINAL"));
  const std::string judged = json::parse(judge.requests().at(0).body)["messages"][0]["content"];
  const std::size_t begin = judged.find("<user_rules>");
  const std::string rules = judged.substr(begin, judged.find("</user_rules>") - begin);
  EXPECT_THAT(rules, HasSubstr("RULE-ORIGINAL"));
  EXPECT_THAT(rules, Not(HasSubstr("RULE-REWRITTEN")));
  EXPECT_THAT(out.err, HasSubstr("attempt 1 changed AGENTS.md"));
}

TEST_F(LoopEndToEnd, TheFamilyWarningGoesByWhoMadeTheModel) {
  // Claude served through an OpenAI-compatible proxy, judged by Claude: the same family.
  agent.push(text_turn("Answer."));
  judge.push(text_turn("PASS"));
  std::vector<std::string> same = args(with_judge({}));
  same[3] = "openai-compat/claude-sonnet-4-5";
  const auto warned = run_ralph(same, cwd.path(), {{"ANTHROPIC_API_KEY", "sk-ant-test-key"}});
  ASSERT_EQ(warned.exit_code, 0) << warned.err;
  const std::string warning = "of the agent's family (anthropic)";
  const auto first = warned.err.find(warning);
  ASSERT_NE(first, std::string::npos) << warned.err;
  EXPECT_EQ(warned.err.find(warning, first + 1), std::string::npos) << "once";

  // Another family behind the same kind of provider prefix: no warning.
  agent.push(text_turn("Answer."));
  judge.push(text_turn("PASS"));
  std::vector<std::string> other = args(with_judge({}));
  other[3] = "openai-compat/gpt-4.1";
  const auto quiet = run_ralph(other, cwd.path(), {{"ANTHROPIC_API_KEY", "sk-ant-test-key"}});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_THAT(quiet.err, Not(HasSubstr("family")));
}

TEST_F(LoopEndToEnd, SeedVariablesTurnOnAJudgeOnTheAgentsModel) {
  agent.push(text_turn("Answer."));
  agent.push(text_turn("PASS")); // the judge shares the agent's server and model
  const auto out = run_ralph(args({}), cwd.path(),
                             {{"RALPH_LOOP_ENABLED", "true"}, {"RALPH_LOOP_MAX_ITERATIONS", "4"}});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(parse_output(out)["verdicts"][0]["verifier"], "judge");
  EXPECT_THAT(out.err, HasSubstr("another family"));
  EXPECT_EQ(agent.requests().size(), 2u);
}

} // namespace
} // namespace ralph::testing
