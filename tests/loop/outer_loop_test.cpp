#include "loop_test_support.h"
#include "support/many_files_dir.h"
#include "support/temp_dir.h"

#include "ralph/loop/outer_loop.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/tools/process_runner.h"
#include "ralph/verify/command_verifier.h"
#include "ralph/verify/evidence_verifier.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <optional>

namespace ralph::loop {
namespace {

using ralph::testing::RecordingSink;
using testing::answer;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::runner_output;
using testing::StubAgent;
using testing::StubAttempt;
using testing::StubVerifier;
using verify::Outcome;

class OuterLoopTest : public ::testing::Test {
protected:
  // Adds a stub verifier the loop will own; the returned reference stays valid for the test.
  StubVerifier& verifier(std::string name = "stub", ErrorPolicy policy = ErrorPolicy::fail_closed) {
    auto owned = std::make_unique<StubVerifier>(std::move(name));
    StubVerifier& ref = *owned;
    m_entries.push_back({std::move(owned), policy});
    return ref;
  }

  // Adds a real command verifier whose command prints the output of the real test runs named
  // (tests/verify/fixtures/test_runners), one per attempt, exiting 1 unless it is a `_pass` one.
  void replayed_test_runs(const std::vector<std::string>& fixtures) {
    options.workspace = m_workspace.path();
    std::string names;
    for (const std::string& name : fixtures) {
      names += " " + name;
    }
    m_workspace.write(
        "check.sh",
        fmt::format("n=$(cat .round 2>/dev/null || echo 0)\necho $((n + 1)) > .round\n"
                    "set --{}\nshift \"$n\"\ncat \"{}/tests/verify/fixtures/test_runners/$1.txt\"\n"
                    "case \"$1\" in *_pass) exit 0 ;; *) exit 1 ;; esac\n",
                    names, RALPH_SOURCE_DIR));
    auto command = verify::make_command_verifier("sh check.sh", VerifySettings{}, m_runner);
    ASSERT_TRUE(command.has_value()) << command.error().message;
    m_entries.push_back({std::move(*command), ErrorPolicy::fail_closed});
  }

  // Adds a real command verifier whose command prints one of `lines` per attempt and fails,
  // passing once they run out: a user's own check that no runner's summary reader knows.
  void command_printing(const std::vector<std::string>& lines) {
    options.workspace = m_workspace.path();
    std::string args;
    for (const std::string& line : lines) {
      args += fmt::format(" '{}'", line);
    }
    m_workspace.write(
        "check.sh", fmt::format("n=$(cat .round 2>/dev/null || echo 0)\necho $((n + 1)) > .round\n"
                                "set --{}\nshift \"$n\"\n[ $# -eq 0 ] && exit 0\necho \"$1\"\n"
                                "exit 1\n",
                                args));
    auto command = verify::make_command_verifier("sh check.sh", VerifySettings{}, m_runner);
    ASSERT_TRUE(command.has_value()) << command.error().message;
    m_entries.push_back({std::move(*command), ErrorPolicy::fail_closed});
  }

  // A token budget of 100, and an attempt of 50 steps at 40 tokens each: stopped at its third.
  void push_attempt_over_100_tokens() {
    options.budget.max_tokens = 100;
    StubAttempt expensive = answer("never delivered");
    expensive.steps = 50;
    expensive.usage_per_step = {.input_tokens = 30, .output_tokens = 10};
    agent.push(expensive);
  }

  LoopResult run(const CancelToken& cancel = CancelToken(), const LoopState& resume = {}) {
    options.goal = "make it work";
    // The loop owns the verifiers the test still reads: it lives as long as the fixture.
    m_loop.emplace(agent, std::move(m_entries), options, clock, journal_in_use);
    m_entries.clear();
    if (resume.next_iteration <= 1 || conversation.empty()) {
      conversation = {Message{.role = Role::user, .content = options.goal}};
    }
    return m_loop->run(conversation, cancel, sink, resume);
  }

  testing::FakeJournal journal;
  Journal* journal_in_use = nullptr;

  ralph::testing::FakeClock clock;
  StubAgent agent{&clock};
  LoopOptions options;
  RecordingSink sink;
  std::vector<Message> conversation;

private:
  ralph::testing::TempDir m_workspace;
  tools::PosixProcessRunner m_runner;
  std::vector<VerifierEntry> m_entries;
  std::optional<OuterLoop> m_loop;
};

TEST_F(OuterLoopTest, WithoutVerifiersOneAttemptCompletes) {
  agent.push(answer("done"));
  const auto result = run();
  EXPECT_EQ(result.status, Status::completed);
  EXPECT_EQ(result.attempts.size(), 1u);
  EXPECT_EQ(result.answer, "done");
}

TEST_F(OuterLoopTest, AnAnswerWithNoVerdictIsNotVerified) {
  agent.push(answer("done"));
  const auto result = run();
  EXPECT_EQ(result.status, Status::completed);
  EXPECT_FALSE(result.verified);
  EXPECT_FALSE(sink.of<event::RunEnded>().front().verified);
}

TEST_F(OuterLoopTest, OnlyErrorsLetThroughByFailOpenDeliverUnverified) {
  verifier("judge", ErrorPolicy::fail_open).then(Outcome::error, "timeout", "judge timed out");
  agent.push(answer("done"));
  const auto result = run();
  EXPECT_EQ(result.status, Status::completed);
  EXPECT_FALSE(result.verified);
  EXPECT_EQ(result.reason, "delivered unverified: judge error (timeout), fail_open");
  EXPECT_FALSE(sink.of<event::RunEnded>().front().verified);
  EXPECT_EQ(sink.of<event::RunEnded>().front().reason, result.reason);
}

TEST_F(OuterLoopTest, AForgivenErrorBesideAPassIsNamed) {
  verifier("command: make check").then(Outcome::pass);
  verifier("judge", ErrorPolicy::fail_open).then(Outcome::error, "malformed", "not JSON");
  agent.push(answer("done"));
  const auto result = run();
  EXPECT_EQ(result.status, Status::completed);
  EXPECT_FALSE(result.verified) << "the judge checked nothing";
  EXPECT_EQ(result.reason, "delivered partly verified on attempt 1: judge error (malformed), "
                           "fail_open; passed: command: make check");
}

TEST_F(OuterLoopTest, PassingFirstTimeCompletesWithEventsInOrder) {
  verifier().then(Outcome::pass);
  agent.push(answer("done"));
  const auto result = run();

  EXPECT_EQ(result.status, Status::completed);
  EXPECT_TRUE(result.verified);
  EXPECT_TRUE(sink.of<event::RunEnded>().front().verified);
  EXPECT_EQ(result.reason, "verified on attempt 1");
  EXPECT_EQ(result.best_iteration, 1);
  EXPECT_THAT(sink.names(),
              ::testing::ElementsAre("attempt_started", "model_finished", "attempt_finished",
                                     "verifier_started", "verdict", "status"));
  EXPECT_EQ(sink.of<event::RunEnded>().front().status, Status::completed);
  EXPECT_EQ(sink.of<event::ModelFinished>().front().model, "stub/agent");
  for (const auto& event : sink.events) {
    EXPECT_EQ(event.iteration, 1) << event.name();
  }
}

TEST_F(OuterLoopTest, FailureIsAppendedAsFeedbackAndTheNextAttemptPasses) {
  auto& check = verifier("command: make check")
                    .then(Outcome::fail, "test_failed", "make check failed", "FAIL: test_add")
                    .then(Outcome::pass);
  agent.push(answer("done, I think"));
  agent.push(answer("fixed"));
  const auto result = run();

  EXPECT_EQ(result.status, Status::completed);
  EXPECT_EQ(result.attempts.size(), 2u);
  EXPECT_EQ(result.best_iteration, 2);
  // What the agent received for its second attempt: the whole history plus the feedback.
  const auto& second = agent.seen.at(1);
  ASSERT_EQ(second.size(), 3u);
  EXPECT_EQ(second[1].content, "done, I think");
  EXPECT_EQ(second[2].role, Role::user);
  EXPECT_THAT(second[2].content, HasSubstr("[command: make check] fail test_failed"));
  EXPECT_THAT(second[2].content, HasSubstr("FAIL: test_add"));
  EXPECT_THAT(second[2].content, HasSubstr("attempt 1 of 3"));
  ASSERT_EQ(check.attempts.size(), 2u);
  EXPECT_EQ(check.attempts[1].previous_feedback.size(), 1u);
  EXPECT_EQ(sink.of<event::FeedbackGiven>().front().mode, FeedbackMode::append);
}

TEST_F(OuterLoopTest, ContinueModeReplacesTheHistoryWithACompactPrompt) {
  options.loop.feedback = FeedbackMode::continuation;
  verifier().then(Outcome::fail, "incomplete", "the README is missing").then(Outcome::pass);
  agent.push(answer("first try"));
  agent.push(answer("second try"));
  const auto result = run();

  EXPECT_EQ(result.status, Status::completed);
  const auto& second = agent.seen.at(1);
  ASSERT_EQ(second.size(), 1u) << "earlier history is dropped";
  EXPECT_EQ(second[0].role, Role::user);
  const std::string& prompt = second[0].content;
  EXPECT_THAT(prompt, HasSubstr("Objective:\nmake it work"));
  EXPECT_THAT(prompt, HasSubstr("Iteration 2 of 3"));
  EXPECT_THAT(prompt, HasSubstr("Runtime summary:"));
  EXPECT_THAT(prompt, HasSubstr("Answer: first try"));
  EXPECT_THAT(prompt, HasSubstr("the README is missing"));
  EXPECT_THAT(prompt, HasSubstr("Plan -> Act -> Verify -> Reflect -> Retry"));
}

TEST_F(OuterLoopTest, RuntimeSummaryIsCappedKeepingHeadAndTail) {
  options.loop.feedback = FeedbackMode::continuation;
  options.loop.runtime_summary_chars = 300;
  options.loop.max_iterations = 4;
  verifier().then(Outcome::fail, "incomplete", "no");
  for (int i = 0; i < 4; ++i) {
    agent.push(answer(std::string(200, static_cast<char>('a' + i))));
  }
  run();
  const std::string& prompt = agent.seen.at(3).at(0).content;
  const auto start = prompt.find("Runtime summary:\n") + 17;
  const auto end = prompt.find("\n\nLast verifier evidence:");
  const std::string summary = prompt.substr(start, end - start);
  EXPECT_LE(summary.size(), 300u + 40u); // the cap plus the omission line
  EXPECT_THAT(summary, HasSubstr("Attempt 1:"));
  EXPECT_THAT(summary, HasSubstr("bytes omitted"));
  EXPECT_THAT(summary, HasSubstr("ccc")); // the latest attempt survives at the tail
}

TEST_F(OuterLoopTest, IterationsRunOutWithANoticeCarryingTheLastEvidence) {
  verifier("command: make check").then(Outcome::fail, "test_failed", "failed", "FAIL: test_sum");
  for (int i = 0; i < 3; ++i) {
    agent.push(answer("attempt " + std::to_string(i)));
  }
  const auto result = run();

  EXPECT_EQ(result.status, Status::budget_exhausted);
  EXPECT_EQ(result.attempts.size(), 3u);
  EXPECT_THAT(result.answer, HasSubstr("attempt 2"));
  EXPECT_THAT(result.answer, HasSubstr("ralph stopped after 3 attempts"));
  EXPECT_THAT(result.answer, HasSubstr("Last verifier evidence:"));
  EXPECT_THAT(result.answer, HasSubstr("FAIL: test_sum"));
  EXPECT_EQ(result.notice, result.answer.substr(result.answer.find("ralph stopped")));
}

TEST_F(OuterLoopTest, ABudgetNoticeQuotesTheVerdictThatFailedNotAPassingCommand) {
  options.loop.max_iterations = 1;
  verifier("command: make check").then(Outcome::pass, "", "", "12 tests passed");
  verifier("evidence")
      .then(Outcome::fail, "no_evidence", "Completion was claimed without evidence: no test run");
  agent.push(answer("all done"));
  const auto result = run();

  EXPECT_EQ(result.status, Status::budget_exhausted);
  EXPECT_THAT(result.notice,
              HasSubstr("Last verifier evidence:\n[evidence] fail no_evidence: Completion was "
                        "claimed without evidence"));
  EXPECT_THAT(result.notice, Not(HasSubstr("12 tests passed")));
}

TEST_F(OuterLoopTest, SameAnswerAndVerdictTwiceIsStalled) {
  options.loop.max_iterations = 10;
  verifier().then(Outcome::fail, "incomplete", "missing tests");
  agent.push(answer("here it is"));
  agent.push(answer("here it is"));
  const auto result = run();
  EXPECT_EQ(result.status, Status::stalled);
  EXPECT_EQ(result.attempts.size(), 2u);
}

TEST_F(OuterLoopTest, UnchangedCommandFailuresAreStalledAfterTheConfiguredCount) {
  options.loop.max_iterations = 10;
  options.loop.stall_after = 3;
  verifier("command: make check")
      .of_kind(verify::VerifierKind::command)
      .then(Outcome::fail, "test_failed", "failed", "FAIL: test_x");
  for (int i = 0; i < 5; ++i) {
    agent.push(answer("try " + std::to_string(i))); // different answers, same failure
  }
  const auto result = run();
  EXPECT_EQ(result.status, Status::stalled);
  EXPECT_EQ(result.attempts.size(), 3u);
  EXPECT_THAT(result.reason, HasSubstr("same way in 3 attempts"));
}

TEST_F(OuterLoopTest, FewerFailingTestsIsProgressEvenWhenTheAnswerRepeats) {
  options.loop.max_iterations = 10;
  replayed_test_runs({"pytest_fail3", "pytest_fail2", "pytest_fail1", "pytest_pass"});
  for (int i = 0; i < 4; ++i) {
    agent.push(answer("Fixed."));
  }
  const auto result = run();

  EXPECT_EQ(result.status, Status::completed) << result.reason;
  EXPECT_EQ(result.attempts.size(), 4u);
  std::vector<std::string> shown;
  for (const auto& verdict : sink.of<event::VerdictGiven>()) {
    ASSERT_TRUE(verdict.tests.has_value());
    EXPECT_EQ(verdict.tests->runner, "pytest");
    EXPECT_EQ(verdict.tests->total, 6);
    shown.push_back(
        fmt::format("{}->{}", verdict.tests->failed_before.value_or(-1), verdict.tests->failed));
  }
  EXPECT_THAT(shown, ::testing::ElementsAre("-1->3", "3->2", "2->1", "1->0"));
  EXPECT_THAT(agent.seen.at(2).back().content, HasSubstr("failing tests: 3 → 2 of 6 (pytest)"));
  EXPECT_THAT(agent.seen.at(1).back().content, HasSubstr("(pytest: 3 failed, 3 passed, 6 total)"));
}

TEST_F(OuterLoopTest, OutputNoRunnerReadsThatChangedIsNotTheSameVerdict) {
  options.loop.max_iterations = 10;
  command_printing({"FAIL: 3 tests failing", "FAIL: 2 tests failing", "FAIL: 1 tests failing"});
  for (int i = 0; i < 4; ++i) {
    agent.push(answer("Fixed."));
  }
  const auto result = run();
  EXPECT_EQ(result.status, Status::completed) << result.reason;
  EXPECT_EQ(result.attempts.size(), 4u);
}

TEST_F(OuterLoopTest, OutputThatDiffersOnlyInDurationsIsTheSameVerdict) {
  options.loop.max_iterations = 10;
  command_printing({"FAIL: 2 tests failing (0.31s, object at 0x7f3a2c)",
                    "FAIL: 2 tests failing (0.29s, object at 0x7f91d0)", "FAIL: never reached"});
  for (int i = 0; i < 3; ++i) {
    agent.push(answer("Fixed."));
  }
  const auto result = run();
  EXPECT_EQ(result.status, Status::stalled);
  EXPECT_EQ(result.attempts.size(), 2u);
}

TEST_F(OuterLoopTest, CommandFailuresDifferingOnlyInDurationsFailTheSameWay) {
  options.loop.max_iterations = 10;
  options.loop.stall_after = 3;
  command_printing({"FAIL: check_x took 1.25 sec", "FAIL: check_x took 1.31 sec",
                    "FAIL: check_x took 0.98 sec", "FAIL: never reached"});
  for (int i = 0; i < 4; ++i) {
    agent.push(answer("try " + std::to_string(i))); // different answers, same failure
  }
  const auto result = run();
  EXPECT_EQ(result.status, Status::stalled);
  EXPECT_EQ(result.attempts.size(), 3u);
  EXPECT_THAT(result.reason, HasSubstr("same way in 3 attempts"));
}

TEST_F(OuterLoopTest, UnchangedFailingTestsWithTheSameAnswerAreStillStalled) {
  options.loop.max_iterations = 10;
  replayed_test_runs({"pytest_fail2", "pytest_fail2", "pytest_fail2", "pytest_pass"});
  for (int i = 0; i < 4; ++i) {
    agent.push(answer("Fixed."));
  }
  const auto result = run();
  EXPECT_EQ(result.status, Status::stalled);
  EXPECT_EQ(result.attempts.size(), 2u);
}

TEST_F(OuterLoopTest, TheSameFailingTestsAgainAfterProgressAreAStall) {
  options.loop.max_iterations = 10;
  replayed_test_runs({"pytest_fail3", "pytest_fail2", "pytest_fail2", "pytest_pass"});
  for (int i = 0; i < 4; ++i) {
    agent.push(answer("Fixed."));
  }
  const auto result = run();
  EXPECT_EQ(result.status, Status::stalled);
  EXPECT_EQ(result.attempts.size(), 3u);
}

TEST_F(OuterLoopTest, OtherTestsFailingThanBeforeAreNotTheSameVerdict) {
  options.loop.max_iterations = 10;
  // Two failing either way, but test_2 and test_3 were fixed while test_1 and test_5 broke.
  replayed_test_runs({"pytest_verbose_fail2", "pytest_verbose_regressed", "pytest_pass"});
  for (int i = 0; i < 3; ++i) {
    agent.push(answer("Fixed."));
  }
  const auto result = run();
  EXPECT_EQ(result.status, Status::completed) << result.reason;
}

TEST_F(OuterLoopTest, ATestThatPassedBeforeAndFailsNowIsCalledARegression) {
  replayed_test_runs({"pytest_verbose_fail2", "pytest_verbose_regressed", "pytest_pass"});
  agent.push(answer("first"));
  agent.push(answer("second"));
  agent.push(answer("third"));
  const auto result = run();

  EXPECT_EQ(result.status, Status::completed) << result.reason;
  const std::string& after_first = agent.seen.at(1).back().content;
  EXPECT_THAT(after_first, Not(HasSubstr("regression")));
  const std::string& after_second = agent.seen.at(2).back().content;
  EXPECT_THAT(after_second, HasSubstr("failing tests: 2 → 2 of 6 (pytest)"));
  EXPECT_THAT(after_second,
              HasSubstr("regression: test_suite.py::Cases::test_1 passed in attempt 1, fails now"));
  EXPECT_THAT(after_second,
              HasSubstr("regression: test_suite.py::Cases::test_5 passed in attempt 1, fails now"));
}

TEST_F(OuterLoopTest, TestCountsInAVerifiersFeedbackAreProgressToo) {
  options.loop.max_iterations = 10;
  // A verifier whose feedback quotes what a real test run printed.
  verifier("exec: run-tests")
      .then(Outcome::fail, "test_failed", runner_output("jest_fail3.txt"))
      .then(Outcome::fail, "test_failed", runner_output("jest_verbose_fail1.txt"))
      .then(Outcome::pass);
  for (int i = 0; i < 3; ++i) {
    agent.push(answer("Fixed."));
  }
  const auto result = run();
  EXPECT_EQ(result.status, Status::completed) << result.reason;
  EXPECT_EQ(result.attempts.size(), 3u);
  EXPECT_EQ(result.attempts[1].verdicts[0].tests->failed, 1);
}

TEST_F(OuterLoopTest, VerifierErrorFollowsItsPolicy) {
  verifier("judge", ErrorPolicy::fail_open).then(Outcome::error, "timeout", "judge timed out");
  agent.push(answer("done"));
  const auto open = run();
  EXPECT_EQ(open.status, Status::completed);
  EXPECT_EQ(open.attempts[0].verdicts[0].policy, ErrorPolicy::fail_open);

  agent = StubAgent(&clock);
  sink = RecordingSink();
  verifier("command: make", ErrorPolicy::fail_closed).then(Outcome::error, "not_runnable", "nope");
  agent.push(answer("done"));
  agent.push(answer("done again"));
  options.loop.max_iterations = 2;
  const auto closed = run();
  EXPECT_EQ(closed.status, Status::budget_exhausted);
  EXPECT_EQ(closed.attempts[0].verdicts[0].policy, ErrorPolicy::fail_closed);
  EXPECT_EQ(sink.of<event::VerdictGiven>().front().policy, ErrorPolicy::fail_closed);
}

TEST_F(OuterLoopTest, BlockedVerdictStopsTheLoop) {
  verifier().then(Outcome::fail, "blocked", "the API key for the service is not available");
  agent.push(answer("cannot"));
  agent.push(answer("unused"));
  const auto result = run();
  EXPECT_EQ(result.status, Status::blocked);
  EXPECT_EQ(result.attempts.size(), 1u);
  EXPECT_THAT(result.reason, HasSubstr("API key"));
}

TEST_F(OuterLoopTest, AgentDeclaringBlockedStopsWithoutVerifying) {
  auto& check = verifier().then(Outcome::pass);
  agent.push(answer("I looked everywhere.\nBLOCKED: the database is not reachable"));
  const auto result = run();
  EXPECT_EQ(result.status, Status::blocked);
  EXPECT_THAT(result.reason, HasSubstr("the database is not reachable"));
  EXPECT_TRUE(check.attempts.empty());
}

TEST_F(OuterLoopTest, KeywordTriggerDeliversUnverifiedWhenNoKeywordAppears) {
  options.loop.trigger.mode = TriggerMode::keywords;
  options.loop.trigger.keywords = {"done"};
  auto& check = verifier().then(Outcome::fail, "incomplete", "no");
  agent.push(answer("Here is a question for you: which branch?"));
  const auto result = run();
  EXPECT_EQ(result.status, Status::completed);
  EXPECT_TRUE(check.attempts.empty());
  EXPECT_EQ(sink.of<event::VerificationSkipped>().front().reason,
            "no trigger keyword in the answer");
}

TEST_F(OuterLoopTest, AfterAFailedVerificationDroppingTheKeywordDoesNotSkipIt) {
  options.loop.trigger.mode = TriggerMode::keywords;
  options.loop.trigger.keywords = {"done"};
  options.loop.max_iterations = 3;
  auto& check = verifier().then(Outcome::fail, "incomplete", "no").then(Outcome::pass);
  agent.push(answer("done: all fixed"));
  agent.push(answer("Here it is, without the word."));
  const auto result = run();
  EXPECT_EQ(check.attempts.size(), 2u) << "the second attempt is verified too";
  EXPECT_TRUE(result.verified);
  EXPECT_TRUE(result.attempts[1].skip_reason.empty());
}

TEST_F(OuterLoopTest, EmptyAnswerIsRetriedWithoutAVerifierCall) {
  auto& check = verifier().then(Outcome::pass);
  agent.push(answer("   "));
  agent.push(answer("real answer"));
  const auto result = run();
  EXPECT_EQ(result.status, Status::completed);
  ASSERT_EQ(check.attempts.size(), 1u);
  EXPECT_EQ(check.attempts[0].answer, "real answer");
  EXPECT_EQ(result.attempts[0].skip_reason, "empty answer");
  EXPECT_THAT(agent.seen.at(1).back().content, HasSubstr("answer was empty"));
}

TEST_F(OuterLoopTest, StepBudgetRanOutIsRetriedAsAnIntermediateTurn) {
  auto& check = verifier().then(Outcome::pass);
  StubAttempt unfinished = answer("");
  unfinished.stop = agent::AgentStop::max_steps;
  agent.push(unfinished);
  agent.push(answer("finished"));
  const auto result = run();
  EXPECT_EQ(result.status, Status::completed);
  EXPECT_EQ(check.attempts.size(), 1u);
  EXPECT_THAT(result.attempts[0].skip_reason, HasSubstr("intermediate tool-call turn"));
}

TEST_F(OuterLoopTest, FinalAttemptIsVerifiedUnlessTurnedOff) {
  options.loop.max_iterations = 2;
  auto& check = verifier().then(Outcome::fail, "incomplete", "no");
  agent.push(answer("one"));
  agent.push(answer("two"));
  EXPECT_EQ(run().status, Status::budget_exhausted);
  EXPECT_EQ(check.attempts.size(), 2u);

  agent = StubAgent(&clock);
  options.loop.verify_final = false;
  auto& lenient = verifier().then(Outcome::fail, "incomplete", "no");
  agent.push(answer("one"));
  agent.push(answer("two"));
  const auto result = run();
  EXPECT_EQ(result.status, Status::completed);
  EXPECT_EQ(lenient.attempts.size(), 1u);
  EXPECT_THAT(result.reason, HasSubstr("unverified"));
}

TEST_F(OuterLoopTest, TokenBudgetStopsAnAttemptMidway) {
  verifier().then(Outcome::pass);
  push_attempt_over_100_tokens();
  const auto result = run();
  EXPECT_EQ(result.status, Status::budget_exhausted);
  EXPECT_EQ(result.attempts[0].steps, 3) << "stopped at the first step over 100 tokens";
  EXPECT_THAT(result.reason, HasSubstr("the token budget ran out during attempt 1"));
  EXPECT_THAT(result.answer, HasSubstr("token budget ran out"));
  ASSERT_FALSE(sink.of<event::BudgetWarning>().empty());
  EXPECT_EQ(sink.of<event::BudgetWarning>().front().budget, BudgetKind::tokens);
}

TEST_F(OuterLoopTest, BudgetSpentByTheFinalAnswerEndsTheRunBeforeVerifying) {
  options.budget.max_tokens = 100;
  auto& judge = verifier("judge", ErrorPolicy::fail_open).then(Outcome::pass);
  StubAttempt costly = answer("an answer that cost too much");
  costly.usage_per_step = {.input_tokens = 150, .output_tokens = 10};
  agent.push(costly);
  const auto result = run();
  EXPECT_EQ(result.status, Status::budget_exhausted);
  EXPECT_TRUE(judge.attempts.empty()) << "verifying would spend more";
}

TEST_F(OuterLoopTest, CancelledVerdictIsNeverForgivenByFailOpen) {
  options.loop.max_iterations = 1;
  verifier("judge", ErrorPolicy::fail_open).then(Outcome::error, "cancelled", "judge cancelled");
  agent.push(answer("done"));
  const auto result = run();
  EXPECT_NE(result.status, Status::completed);
  EXPECT_FALSE(result.attempts[0].passed);
}

TEST_F(OuterLoopTest, JudgeTokensCountAgainstTheBudget) {
  options.budget.max_tokens = 1000;
  options.loop.max_iterations = 5;
  verifier("judge")
      .then(Outcome::fail, "incomplete", "no")
      .using_tokens("x/judge", {.input_tokens = 900, .output_tokens = 100});
  agent.push(answer("a"));
  agent.push(answer("b"));
  const auto result = run();
  EXPECT_EQ(result.status, Status::budget_exhausted);
  EXPECT_EQ(result.attempts.size(), 1u);
  EXPECT_EQ(result.usage.input_tokens, 910);
}

TEST_F(OuterLoopTest, CostBudgetUsesThePriceTable) {
  options.budget.max_cost_usd = 0.01;
  options.loop.max_iterations = 5;
  options.prices["stub/agent"] = Price{1000.0, 1000.0}; // $0.001 per token
  verifier().then(Outcome::fail, "incomplete", "no");
  for (int i = 0; i < 5; ++i) {
    agent.push(answer("try " + std::to_string(i)));
  }
  const auto result = run();
  EXPECT_EQ(result.status, Status::budget_exhausted);
  EXPECT_THAT(result.reason, HasSubstr("cost"));
  EXPECT_NEAR(result.cost_usd, 0.015, 1e-9);
  EXPECT_TRUE(result.cost_known);
}

TEST_F(OuterLoopTest, ABudgetNoticeWithoutVerifiersSpeaksOfNone) {
  push_attempt_over_100_tokens();
  const auto result = run();
  EXPECT_EQ(result.status, Status::budget_exhausted);
  EXPECT_THAT(result.answer, HasSubstr("ralph stopped after 1 attempt: the token budget ran out "
                                       "before the agent finished."));
  EXPECT_THAT(result.answer, Not(HasSubstr("verifier")));
}

TEST_F(OuterLoopTest, TimeBudgetStopsAnAttemptThatRunsPastIt) {
  options.budget.max_time = std::chrono::minutes(1);
  auto& check = verifier().then(Outcome::pass);
  StubAttempt slow = answer("late");
  slow.takes = std::chrono::minutes(2);
  agent.push(slow);
  const auto result = run();
  EXPECT_EQ(result.status, Status::budget_exhausted);
  EXPECT_THAT(result.reason, HasSubstr("time budget ran out during attempt 1"));
  EXPECT_TRUE(check.attempts.empty());
}

TEST_F(OuterLoopTest, TimeIsTheInjectedClocksAndAddsUpOverAttempts) {
  options.budget.max_time = std::chrono::seconds(60);
  verifier().then(Outcome::fail, "incomplete", "no");
  StubAttempt first = answer("first");
  first.takes = std::chrono::seconds(50);
  StubAttempt second = answer("second");
  second.takes = std::chrono::seconds(20);
  agent.push(first);
  agent.push(second);
  const auto result = run();
  EXPECT_EQ(result.status, Status::budget_exhausted);
  ASSERT_EQ(result.attempts.size(), 2u);
  EXPECT_EQ(result.attempts[0].duration_ms, 50'000);
  EXPECT_THAT(result.reason, HasSubstr("during attempt 2"));
  EXPECT_EQ(result.duration_ms, 70'000);
  const auto warnings = sink.of<event::BudgetWarning>();
  ASSERT_EQ(warnings.size(), 1u) << "50 of 60 s is past 80 %";
  EXPECT_EQ(warnings[0].budget, BudgetKind::time);
}

TEST_F(OuterLoopTest, UserCancelIsInterruptedNotABudget) {
  options.budget.max_time = std::chrono::hours(1);
  verifier().then(Outcome::pass);
  StubAttempt waiting = answer("never");
  waiting.wait_for_cancel = true;
  agent.push(waiting);
  CancelToken cancel;
  std::thread canceller([&] {
    while (agent.seen.empty()) {
      std::this_thread::yield();
    }
    cancel.cancel();
  });
  const auto result = run(cancel);
  canceller.join();
  EXPECT_EQ(result.status, Status::interrupted);
  EXPECT_EQ(result.reason, "stopped during attempt 1");
}

// An attempt the agent CLI's plan stopped, its limit resetting `after` from now on the clock.
StubAttempt limited(const ralph::testing::FakeClock& clock, std::chrono::milliseconds after) {
  StubAttempt attempt = answer("You've hit your limit");
  attempt.usage_limit = agent::UsageLimit{.agent = "Claude Code",
                                          .message = "You've hit your 5-hour limit",
                                          .resets_at = clock.wall_now() + after};
  return attempt;
}

TEST_F(OuterLoopTest, AUsageLimitIsWaitedOutOnTheClockAndTheSameAttemptGoesOn) {
  options.budget.max_time = std::chrono::hours(4);
  verifier().then(Outcome::pass);
  agent.push(limited(clock, std::chrono::hours(2)));
  agent.push(answer("done after the reset"));
  const auto result = run();
  EXPECT_EQ(result.status, Status::completed) << result.reason;
  EXPECT_EQ(result.answer, "done after the reset");
  ASSERT_EQ(result.attempts.size(), 1u) << "the limit is no failed attempt";
  EXPECT_EQ(clock.sleeps(), std::vector<std::chrono::milliseconds>{std::chrono::hours(2)});
  const auto waits = sink.of<event::AgentLimitWait>();
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0].agent, "Claude Code");
  EXPECT_EQ(waits[0].wait, std::chrono::hours(2));
  EXPECT_EQ(waits[0].resets_at, clock.wall_now());
  // The agent went on told that the limit reset, after what it said when it stopped.
  ASSERT_EQ(agent.seen.size(), 2u);
  EXPECT_EQ(agent.seen[1].back().content,
            "The usage limit has reset. Go on with the task where you left off.");
  // The wait counts against the time budget like any other time of the attempt.
  EXPECT_GE(result.duration_ms, std::chrono::milliseconds(std::chrono::hours(2)).count());
}

TEST_F(OuterLoopTest, AResetAfterTheTimeBudgetEndsTheRunWithoutWaiting) {
  options.budget.max_time = std::chrono::hours(1);
  verifier().then(Outcome::pass);
  agent.push(limited(clock, std::chrono::hours(3)));
  const auto result = run();
  EXPECT_EQ(result.status, Status::failed);
  EXPECT_THAT(result.reason, HasSubstr("Claude Code's usage limit is reached until "));
  EXPECT_THAT(result.reason, HasSubstr("after the time budget ends; not waiting"));
  EXPECT_TRUE(clock.sleeps().empty());
  EXPECT_TRUE(sink.of<event::AgentLimitWait>().empty());
}

TEST_F(OuterLoopTest, AUsageLimitWithoutAResetTimeIsNotWaitedFor) {
  verifier().then(Outcome::pass);
  StubAttempt attempt = answer("limit");
  attempt.usage_limit = agent::UsageLimit{
      .agent = "Codex", .message = "You've hit your usage limit.", .resets_at = std::nullopt};
  agent.push(attempt);
  const auto result = run();
  EXPECT_EQ(result.status, Status::failed);
  EXPECT_THAT(result.reason, HasSubstr("did not say when it resets"));
  EXPECT_TRUE(clock.sleeps().empty());
}

TEST_F(OuterLoopTest, AgentFailureEndsTheRunAsFailed) {
  verifier().then(Outcome::pass);
  // Nothing scripted: the stub agent fails.
  const auto result = run();
  EXPECT_EQ(result.status, Status::failed);
  ASSERT_TRUE(result.error);
  EXPECT_THAT(result.error->message, HasSubstr("no attempt scripted"));
}

TEST_F(OuterLoopTest, IterationWarningWhenTheLastAttemptStarts) {
  options.loop.max_iterations = 5;
  verifier().then(Outcome::fail, "incomplete", "no");
  for (int i = 0; i < 5; ++i) {
    agent.push(answer("try " + std::to_string(i)));
  }
  run();
  const auto warnings = sink.all<event::BudgetWarning>();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].iteration, 5);
  const auto* warning = warnings[0].get<event::BudgetWarning>();
  EXPECT_EQ(warning->budget, BudgetKind::iterations);
  EXPECT_EQ(warning->used, 4) << "attempts finished when the last one starts";
  EXPECT_EQ(warning->limit, 5);
  EXPECT_EQ(warning->percent, 80);
}

TEST_F(OuterLoopTest, ASingleAttemptRunHasNoIterationWarning) {
  options.loop.max_iterations = 1;
  verifier().then(Outcome::fail, "incomplete", "no");
  agent.push(answer("only"));
  run();
  EXPECT_TRUE(sink.of<event::BudgetWarning>().empty());
}

TEST_F(OuterLoopTest, BestAttemptIsTheOneWithTheMostPassingVerdicts) {
  options.loop.max_iterations = 3;
  verifier("a").then(Outcome::fail, "x", "1").then(Outcome::pass).then(Outcome::fail, "x", "3");
  verifier("b").then(Outcome::fail, "y", "1");
  for (int i = 0; i < 3; ++i) {
    agent.push(answer("try " + std::to_string(i)));
  }
  const auto result = run();
  EXPECT_EQ(result.status, Status::budget_exhausted);
  EXPECT_EQ(result.best_iteration, 2);
}

TEST_F(OuterLoopTest, VerifierFirstRunsMarkToolCallsThatChangedTheWorkspace) {
  ralph::testing::TempDir ws;
  ws.write("a.txt", "one");
  options.workspace = ws.path();
  options.evidence.enabled = true;
  auto& check = verifier().then(Outcome::pass);
  StubAttempt work = answer("done");
  work.calls.push_back({"shell", R"({"command":"cat a.txt"})", 0, nullptr});
  work.calls.push_back(
      {"shell", R"({"command":"echo two > a.txt"})", 0, [&] { ws.write("a.txt", "two, longer"); }});
  work.calls.push_back({"read_file", R"({"path":"a.txt"})", std::nullopt, nullptr});
  agent.push(work);
  run();
  ASSERT_EQ(check.attempts.size(), 1u);
  const auto& tools = check.attempts[0].tools;
  ASSERT_EQ(tools.size(), 3u);
  EXPECT_FALSE(tools[0].changed_workspace);
  EXPECT_TRUE(tools[1].changed_workspace);
  EXPECT_FALSE(tools[2].changed_workspace);
  EXPECT_EQ(tools[1].arguments, R"({"command":"echo two > a.txt"})");
  EXPECT_EQ(tools[1].exit_code, 0);
}

TEST_F(OuterLoopTest, AReadOnlyShellCallRightAfterAWriteChangedNothing) {
  ralph::testing::TempDir ws;
  tools::PosixProcessRunner runner;
  options.workspace = ws.path();
  options.evidence.enabled = true;
  auto& check = verifier().then(Outcome::pass);
  const auto write_file = tools::make_write_file_tool();
  const auto shell = tools::make_shell_tool(ToolSettings{}, runner);
  const tools::ToolContext context{.workspace = ws.path()};
  const std::string write = R"({"path":"a.txt","content":"one"})";
  const std::string cat = R"({"command":"cat a.txt"})";
  StubAttempt work = answer("done");
  work.calls.push_back({"write_file", write, std::nullopt, nullptr, true,
                        [&] { return write_file->run(write, context); }});
  work.calls.push_back({"shell", cat, 0, nullptr, false, [&] { return shell->run(cat, context); }});
  work.calls.push_back({"write_file", write, std::nullopt, nullptr, true,
                        [&] { return write_file->run(write, context); }});
  agent.push(work);
  run();

  ASSERT_EQ(check.attempts.size(), 1u);
  const auto& tools = check.attempts[0].tools;
  ASSERT_EQ(tools.size(), 3u);
  EXPECT_EQ(tools[1].exit_code, 0);
  EXPECT_TRUE(tools[0].changed_workspace);
  EXPECT_FALSE(tools[1].changed_workspace) << "cat after write_file";
  EXPECT_TRUE(tools[2].changed_workspace) << "a write is a change, even of the same bytes";
}

TEST_F(OuterLoopTest, AToolThatSaysItWroteFilesChangedTheWorkspaceEvenWhenStatCannotTell) {
  ralph::testing::TempDir ws;
  options.workspace = ws.path();
  options.evidence.enabled = true;
  auto& check = verifier().then(Outcome::pass);
  StubAttempt work = answer("done");
  work.calls.push_back({"my_writer", "{}", std::nullopt, nullptr, true});
  work.calls.push_back({"my_reader", "{}", std::nullopt, nullptr, false});
  agent.push(work);
  run();
  ASSERT_EQ(check.attempts.size(), 1u);
  ASSERT_EQ(check.attempts[0].tools.size(), 2u);
  EXPECT_TRUE(check.attempts[0].tools[0].changed_workspace);
  EXPECT_FALSE(check.attempts[0].tools[1].changed_workspace);
}

TEST_F(OuterLoopTest, InAWorkspaceOfMoreThan100kFilesOnlyRealWritesMakeEvidenceStale) {
  // 101,000 files: past the old walk's cap of 100,000 entries, which made every call a change.
  const ralph::testing::ManyFilesDir ws(101'000);
  options.workspace = ws.path();
  options.evidence.enabled = true;
  auto& check = verifier().then(Outcome::pass);
  const auto read_file = tools::make_read_file_tool();
  const tools::ToolContext context{.workspace = ws.path()};
  StubAttempt work = answer("done\n<promise>DONE</promise>");
  work.calls.push_back({"shell", R"({"command":"pytest -q"})", 0, nullptr});
  work.calls.push_back({"read_file", R"({"path":"d000/f0001.txt"})", std::nullopt, nullptr, false,
                        [&] { return read_file->run(R"({"path":"d000/f0001.txt"})", context); }});
  work.calls.push_back({"shell", R"({"command":"cat d000/f0002.txt"})", 0, nullptr});
  work.calls.push_back({"shell", R"({"command":"echo x >> d0050/f0500.txt"})", 0, [&] {
                          std::ofstream(ws.path() / "d0050/f0500.txt", std::ios::app) << "x";
                        }});
  agent.push(work);
  run();

  ASSERT_EQ(check.attempts.size(), 1u);
  const auto& tools = check.attempts[0].tools;
  ASSERT_EQ(tools.size(), 4u);
  EXPECT_FALSE(tools[1].changed_workspace) << "read_file is read-only";
  EXPECT_FALSE(tools[2].changed_workspace) << "cat changed nothing";
  EXPECT_TRUE(tools[3].changed_workspace) << "one byte appended to one file of 101,000";

  // The evidence verifier on the calls up to `count`: fresh after the reads, stale after the write.
  const auto evidence = [&](std::size_t count) {
    verify::Attempt attempt;
    attempt.raw_answer = "done\n<promise>DONE</promise>";
    attempt.tools.assign(tools.begin(), tools.begin() + static_cast<std::ptrdiff_t>(count));
    return verify::EvidenceVerifier(EvidenceSettings{}, {}).verify(attempt, CancelToken());
  };
  EXPECT_EQ(evidence(3).result, Outcome::pass) << evidence(3).feedback;
  EXPECT_THAT(evidence(4).feedback, HasSubstr("stale"));
}

TEST_F(OuterLoopTest, CompletionMarkerIsStrippedFromTheDeliveredAnswer) {
  verifier().then(Outcome::pass);
  agent.push(answer("All green.\n<promise>DONE</promise>"));
  const auto result = run();
  EXPECT_EQ(result.answer, "All green.");
  EXPECT_THAT(result.answer, Not(HasSubstr("promise")));
}

TEST_F(OuterLoopTest, JournalRecordsEveryStepAndWhereTheNextAttemptStarts) {
  journal_in_use = &journal;
  verifier().then(Outcome::fail, "incomplete", "more").then(Outcome::pass);
  StubAttempt first = answer("first");
  first.calls.push_back({"shell", R"({"command":"make"})", 2, nullptr});
  agent.push(first);
  agent.push(answer("second"));
  const auto result = run();

  EXPECT_EQ(result.status, Status::completed);
  // The stub's tool answers "ran NAME".
  EXPECT_EQ(journal.log, (std::vector<std::string>{"started 1", "tool 1.1 shell ran shell",
                                                   "model 1", "finished 1 next", "started 2",
                                                   "model 2", "finished 2 last", "end completed"}));
  ASSERT_TRUE(journal.resume_points[0]);
  const ResumePoint& next = *journal.resume_points[0];
  EXPECT_EQ(next.next_iteration, 2);
  EXPECT_EQ(next.conversation.back().role, Role::user);
  EXPECT_THAT(next.conversation.back().content, HasSubstr("more"));
  EXPECT_EQ(next.feedback_given.size(), 1u);
  EXPECT_THAT(next.runtime_summary, HasSubstr("Attempt 1:"));
  EXPECT_EQ(journal.added_messages[0].size(), 1u) << "the answer the attempt added";
  EXPECT_EQ(journal.starts[1], next.conversation) << "attempt 2 starts where the record says";
  EXPECT_EQ(journal.last_counters.usage.input_tokens, 20);
  EXPECT_EQ(journal.best, 2);
}

TEST_F(OuterLoopTest, AHoldEndsTheRunAfterTheFeedbackIsGivenAndRecorded) {
  options.loop.max_iterations = 5;
  verifier().then(Outcome::fail, "incomplete", "add the tests");
  journal_in_use = &journal;
  int asked = 0;
  options.hold = [&asked] { return ++asked == 2; };
  agent.push(answer("first"));
  agent.push(answer("second"));
  agent.push(answer("never run"));

  const auto result = run();

  EXPECT_EQ(result.status, Status::interrupted);
  EXPECT_EQ(result.reason, "paused after attempt 2");
  EXPECT_EQ(result.attempts.size(), 2u);
  EXPECT_EQ(agent.seen.size(), 2u);
  // Where the held goal goes on: attempt 3, with attempt 2's feedback already given.
  ASSERT_EQ(journal.resume_points.size(), 2u);
  ASSERT_TRUE(journal.resume_points[1].has_value());
  EXPECT_EQ(journal.resume_points[1]->next_iteration, 3);
  EXPECT_THAT(journal.resume_points[1]->conversation.back().content, HasSubstr("add the tests"));
}

TEST_F(OuterLoopTest, ResumeContinuesWithTheRecordAndBudgetsCarriedOn) {
  options.budget.max_tokens = 1000;
  options.loop.max_iterations = 5;
  verifier().then(Outcome::fail, "incomplete", "again");
  LoopState resume;
  resume.next_iteration = 3;
  for (int i = 1; i <= 2; ++i) {
    AttemptRecord earlier;
    earlier.iteration = i;
    earlier.answer = "earlier " + std::to_string(i);
    earlier.verified = true;
    verify::Verdict verdict;
    verdict.verifier = "stub";
    verdict.result = Outcome::fail;
    verdict.category = verify::Category::incomplete;
    earlier.verdicts.push_back(verdict);
    resume.attempts.push_back(earlier);
  }
  resume.feedback_given = {"fix one", "fix two"};
  resume.spent.usage = {.input_tokens = 900, .output_tokens = 50};
  resume.spent.elapsed_ms = 5000;
  conversation = {Message{.role = Role::user, .content = "resumed context"}};
  StubAttempt third = answer("third");
  third.usage_per_step = {.input_tokens = 60};
  agent.push(third);

  const auto result = run(CancelToken(), resume);

  EXPECT_EQ(result.status, Status::budget_exhausted) << "950 carried + 60 is over 1000";
  ASSERT_EQ(result.attempts.size(), 3u);
  EXPECT_EQ(result.attempts[2].iteration, 3);
  EXPECT_EQ(result.usage.input_tokens, 960);
  EXPECT_GE(result.duration_ms, 5000);
  EXPECT_EQ(agent.seen.at(0).at(0).content, "resumed context");
  EXPECT_EQ(sink.all<event::AttemptStarted>().front().iteration, 3);
}

TEST_F(OuterLoopTest, ResumePassesPreviousFeedbackToTheVerifiers) {
  options.loop.max_iterations = 5;
  auto& check = verifier().then(Outcome::pass);
  LoopState resume;
  resume.next_iteration = 2;
  AttemptRecord earlier;
  earlier.iteration = 1;
  resume.attempts.push_back(earlier);
  resume.feedback_given = {"the README is missing"};
  agent.push(answer("with README"));
  EXPECT_EQ(run(CancelToken(), resume).status, Status::completed);
  ASSERT_EQ(check.attempts.size(), 1u);
  EXPECT_EQ(check.attempts[0].iteration, 2);
  EXPECT_EQ(check.attempts[0].previous_feedback,
            (std::vector<std::string>{"the README is missing"}));
}

TEST_F(OuterLoopTest, ResumeWithNoAttemptsLeftEndsAtOnce) {
  options.loop.max_iterations = 2;
  verifier().then(Outcome::pass);
  LoopState resume;
  resume.next_iteration = 3;
  const auto result = run(CancelToken(), resume);
  EXPECT_EQ(result.status, Status::budget_exhausted);
  EXPECT_TRUE(agent.seen.empty());
  EXPECT_THAT(result.reason, HasSubstr("raise"));
}

TEST_F(OuterLoopTest, AStepThatCannotBeRecordedStopsTheRunAsFailed) {
  journal_in_use = &journal;
  journal.fail_from_write = 2; // the attempt start is recorded, its first model call is not
  verifier().then(Outcome::pass);
  StubAttempt long_one = answer("never");
  long_one.steps = 10;
  agent.push(long_one);
  const auto result = run();
  EXPECT_EQ(result.status, Status::failed);
  EXPECT_EQ(result.attempts[0].steps, 1) << "no step after the unrecorded one";
  EXPECT_THAT(result.reason, HasSubstr("disk full"));
}

// Each waits for the other: only concurrent verification can pass.
class RendezvousVerifier final : public verify::Verifier {
public:
  struct Meeting {
    std::mutex mutex;
    std::condition_variable arrived;
    int count = 0;
  };
  RendezvousVerifier(std::string name, Meeting& meeting)
      : m_name(std::move(name)), m_meeting(meeting) {}
  std::string name() const override { return m_name; }
  verify::Verdict verify(const verify::Attempt&, const CancelToken&) override {
    std::unique_lock lock(m_meeting.mutex);
    ++m_meeting.count;
    m_meeting.arrived.notify_all();
    const bool met = m_meeting.arrived.wait_for(lock, std::chrono::seconds(30),
                                                [&] { return m_meeting.count >= 2; });
    verify::Verdict verdict;
    verdict.result = met ? Outcome::pass : Outcome::fail;
    verdict.category = met ? verify::Category::none : verify::Category::named("ran alone");
    return verdict;
  }

private:
  std::string m_name;
  Meeting& m_meeting;
};

TEST(OuterLoopConcurrency, IndependentVerifiersRunAtTheSameTime) {
  RendezvousVerifier::Meeting meeting;
  std::vector<VerifierEntry> entries;
  entries.push_back(
      {std::make_unique<RendezvousVerifier>("one", meeting), ErrorPolicy::fail_closed});
  entries.push_back(
      {std::make_unique<RendezvousVerifier>("two", meeting), ErrorPolicy::fail_closed});
  StubAgent agent;
  agent.push(answer("done"));
  LoopOptions options;
  options.goal = "g";
  SystemClock clock;
  OuterLoop loop(agent, std::move(entries), options, clock);
  std::vector<Message> conversation{Message{.role = Role::user, .content = "g"}};
  RecordingSink sink;
  const auto result = loop.run(conversation, CancelToken(), sink);
  EXPECT_EQ(result.status, Status::completed);
}

} // namespace
} // namespace ralph::loop
