#include "loop_test_support.h"
#include "support/temp_dir.h"

#include "ralph/core/message_json.h"
#include "ralph/loop/session_resume.h"
#include "ralph/loop/store_journal.h"
#include "ralph/store/sqlite_session_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

class StoreJournalTest : public ::testing::Test {
protected:
  StoreJournalTest() {
    auto opened = store::SqliteSessionStore::open(dir.path() / "ralph.db");
    EXPECT_TRUE(opened) << opened.error().message;
    db = std::move(*opened);
    options.goal = "make it work";
    options.loop.max_iterations = 2;
  }

  store::SessionRow new_session() {
    store::SessionRow row;
    row.id = "s1";
    row.goal = options.goal;
    row.workspace = dir.path().string();
    row.model = "stub/agent";
    row.created_at = "2026-11-23T10:00:00.000Z";
    row.updated_at = row.created_at;
    ResumePoint start;
    start.conversation = {Message{.role = Role::user, .content = options.goal}};
    row.resume_json = resume_point_to_json(start);
    EXPECT_TRUE(db->create_session(row));
    return row;
  }

  // Runs the loop with a journal on the store, from a fresh session or from `resume`.
  LoopResult run(std::vector<Message> conversation, const LoopState& resume,
                 const store::SessionRow& session) {
    StoreJournal journal(*db, session, redactor, nullptr, sink);
    std::vector<VerifierEntry> entries;
    entries.push_back({std::move(verifier), ErrorPolicy::fail_closed});
    OuterLoop loop(agent, std::move(entries), options, clock, &journal);
    return loop.run(conversation, CancelToken(), sink, resume);
  }

  store::SessionRecord load() {
    auto record = db->load("s1");
    EXPECT_TRUE(record && *record);
    return **record;
  }

  ralph::testing::TempDir dir;
  std::unique_ptr<store::SqliteSessionStore> db;
  LoopOptions options;
  ralph::testing::FakeClock clock;
  StubAgent agent{&clock};
  std::unique_ptr<StubVerifier> verifier = std::make_unique<StubVerifier>("command: make check");
  Redactor redactor;
  RecordingSink sink;
};

TEST_F(StoreJournalTest, RoundTripOfAFullSession) {
  redactor.add("sk-secret-value-123");
  verifier->then(Outcome::fail, "test_failed", "2 tests failed", "FAIL: test_a")
      .then(Outcome::pass);
  StubAttempt first = answer("first, key sk-secret-value-123");
  first.calls.push_back({"shell", R"({"command":"make check"})", 2, nullptr});
  agent.push(first);
  agent.push(answer("second"));
  const auto session = new_session();

  const auto result =
      run({Message{.role = Role::user, .content = options.goal}}, LoopState(), session);

  ASSERT_EQ(result.status, Status::completed);
  const auto record = load();
  EXPECT_EQ(record.session.status, Status::completed);
  EXPECT_EQ(record.session.iterations, 2);
  EXPECT_EQ(record.session.best_iteration, 2);
  EXPECT_EQ(record.session.input_tokens, 20);
  EXPECT_EQ(record.session.owner_pid, 0);
  ASSERT_EQ(record.attempts.size(), 2u);
  EXPECT_TRUE(record.attempts[0].finished);
  EXPECT_THAT(record.attempts[0].feedback, HasSubstr("FAIL: test_a"));
  EXPECT_EQ(record.attempts[1].answer, "second");
  EXPECT_EQ(record.model_calls.size(), 2u);
  ASSERT_EQ(record.tool_calls.size(), 1u);
  EXPECT_EQ(record.tool_calls[0].exit_code, 2);
  ASSERT_EQ(record.verdicts.size(), 2u);
  EXPECT_EQ(record.verdicts[0].category, "test_failed");
  EXPECT_EQ(record.verdicts[0].kind, "custom");
  EXPECT_THAT(record.verdicts[0].evidence_json, HasSubstr("FAIL: test_a"));
  // Nothing stored holds the secret.
  EXPECT_THAT(record.attempts[0].answer, Not(HasSubstr("sk-secret-value-123")));
  EXPECT_THAT(record.attempts[0].messages_json, Not(HasSubstr("sk-secret-value-123")));
  EXPECT_THAT(record.session.resume_json, Not(HasSubstr("sk-secret-value-123")));
}

TEST_F(StoreJournalTest, KilledAttemptResumesFromItsStartWithTheCountersItSpent) {
  const auto session = new_session();
  StoreJournal journal(*db, session, redactor, nullptr, sink);
  // Attempt 1 ran and failed with feedback; attempt 2 started, made a call, and the process died.
  AttemptRecord first;
  first.iteration = 1;
  first.answer = "first";
  first.stop = agent::AgentStop::answered;
  first.verified = true;
  first.feedback = "fix it";
  verify::Verdict verdict;
  verdict.verifier = "command: make check";
  verdict.result = Outcome::fail;
  verdict.category = verify::Category::test_failed;
  first.verdicts.push_back(verdict);
  const std::vector<Message> start1{Message{.role = Role::user, .content = "goal"}};
  journal.attempt_started(1, start1);
  BudgetCounters counters;
  counters.usage = {.input_tokens = 100, .output_tokens = 10};
  const agent::ModelCall call{
      .step = 1, .model = "stub/agent", .usage = {.input_tokens = 100, .output_tokens = 10}};
  journal.model_call(1, call, counters);
  ResumePoint next{2,
                   {Message{.role = Role::user, .content = "goal"},
                    Message{.role = Role::assistant, .content = "first"},
                    Message{.role = Role::user, .content = "fix it"}},
                   {"fix it"},
                   "Attempt 1: ..."};
  journal.attempt_finished(first, {}, counters, 1, next);
  journal.attempt_started(2, next.conversation);
  counters.usage = {.input_tokens = 250, .output_tokens = 20};
  counters.elapsed_ms = 7000;
  journal.model_call(2, call, counters);
  ASSERT_FALSE(journal.failure());

  const auto resumed = resume_from_record(load());
  ASSERT_TRUE(resumed) << resumed.error().message;
  EXPECT_EQ(resumed->state.next_iteration, 2);
  EXPECT_EQ(resumed->conversation, next.conversation);
  ASSERT_EQ(resumed->state.attempts.size(), 1u);
  EXPECT_EQ(resumed->state.attempts[0].verdicts[0].category.name(), "test_failed");
  EXPECT_EQ(resumed->state.feedback_given, (std::vector<std::string>{"fix it"}));
  EXPECT_EQ(resumed->state.spent.usage.input_tokens, 250) << "the killed attempt's call counts";
  EXPECT_EQ(resumed->state.spent.elapsed_ms, 7000);
  EXPECT_FALSE(resumed->state.feedback_pending);
}

TEST_F(StoreJournalTest, AnAttemptCutShortByCtrlCRunsAgainWhenResumed) {
  // One attempt allowed; Ctrl-C stopped it before it answered. Resuming must run it again, not
  // count it as spent and end `budget_exhausted` with nothing done.
  options.loop.max_iterations = 1;
  const auto session = new_session();
  StoreJournal journal(*db, session, redactor, nullptr, sink);
  const std::vector<Message> start{Message{.role = Role::user, .content = options.goal}};
  journal.attempt_started(1, start);
  BudgetCounters counters;
  counters.usage = {.input_tokens = 100, .output_tokens = 10};
  journal.model_call(
      1, {.step = 1, .model = "stub/agent", .usage = {.input_tokens = 100, .output_tokens = 10}},
      counters);
  AttemptRecord cut;
  cut.iteration = 1;
  cut.stop = agent::AgentStop::cancelled;
  journal.attempt_finished(cut, {}, counters, 0, std::nullopt);
  LoopResult interrupted;
  interrupted.status = Status::interrupted;
  interrupted.reason = "stopped during attempt 1";
  interrupted.usage = counters.usage;
  journal.finished(interrupted);
  ASSERT_FALSE(journal.failure());

  const auto resumed = resume_from_record(load());
  ASSERT_TRUE(resumed) << resumed.error().message;
  EXPECT_EQ(resumed->state.next_iteration, 1);
  EXPECT_EQ(resumed->conversation, start);
  EXPECT_TRUE(resumed->state.attempts.empty());
  EXPECT_FALSE(resumed->state.feedback_pending);
  EXPECT_EQ(resumed->state.spent.usage.input_tokens, 100) << "what it spent still counts";

  verifier->then(Outcome::pass);
  agent.push(answer("done"));
  const auto second_run = run(resumed->conversation, resumed->state, load().session);
  EXPECT_EQ(second_run.status, Status::completed);
  EXPECT_EQ(second_run.attempts.size(), 1u);
  EXPECT_EQ(second_run.usage.input_tokens, 110);
}

TEST_F(StoreJournalTest, ExhaustedSessionResumedWithMoreIterationsGetsItsFeedbackAndGoesOn) {
  verifier->then(Outcome::fail, "test_failed", "still failing", "FAIL: test_b");
  agent.push(answer("one"));
  agent.push(answer("two"));
  const auto session = new_session();
  const auto first_run =
      run({Message{.role = Role::user, .content = options.goal}}, LoopState(), session);
  ASSERT_EQ(first_run.status, Status::budget_exhausted);

  auto record = load();
  const auto resumed = resume_from_record(record);
  ASSERT_TRUE(resumed) << resumed.error().message;
  EXPECT_EQ(resumed->state.next_iteration, 3);
  EXPECT_TRUE(resumed->state.feedback_pending);
  EXPECT_EQ(resumed->state.attempts.size(), 2u);

  options.loop.max_iterations = 3;
  verifier = std::make_unique<StubVerifier>("command: make check");
  verifier->then(Outcome::pass);
  agent = StubAgent();
  agent.push(answer("three"));
  const auto second_run = run(resumed->conversation, resumed->state, record.session);

  EXPECT_EQ(second_run.status, Status::completed);
  ASSERT_EQ(second_run.attempts.size(), 3u);
  EXPECT_EQ(second_run.usage.input_tokens, 30) << "10 per attempt, the first run's carried on";
  // The third attempt was told what the second one got wrong.
  EXPECT_THAT(agent.seen.at(0).back().content, HasSubstr("FAIL: test_b"));
  record = load();
  EXPECT_EQ(record.session.status, Status::completed);
  EXPECT_EQ(record.attempts.size(), 3u);
}

TEST_F(StoreJournalTest, TestCountsAreRecordedAndARegressionIsToldAfterResuming) {
  // A verifier whose feedback is what cargo test printed: tests::case_3 passes in the first run
  // and fails in the second. Its verdicts have evidence, which the counts are stored with.
  verifier->then(Outcome::fail, "test_failed", runner_output("cargo_fail3.txt"), "exit 101")
      .then(Outcome::fail, "test_failed", runner_output("cargo_fail2.txt"), "exit 101")
      .then(Outcome::pass);
  agent.push(answer("one"));
  agent.push(answer("two"));
  const auto session = new_session();
  const auto first_run =
      run({Message{.role = Role::user, .content = options.goal}}, LoopState(), session);
  ASSERT_EQ(first_run.status, Status::budget_exhausted);

  auto record = load();
  ASSERT_EQ(record.verdicts.size(), 2u);
  const auto stored = nlohmann::json::parse(record.verdicts[0].evidence_json);
  EXPECT_EQ(stored["tests"]["runner"], "cargo test");
  EXPECT_EQ(stored["tests"]["failed"], 3);
  EXPECT_EQ(stored["tests"]["failing"].size(), 3u);

  const auto resumed = resume_from_record(record);
  ASSERT_TRUE(resumed) << resumed.error().message;
  const auto& tests = resumed->state.attempts.at(1).verdicts.at(0).tests;
  ASSERT_TRUE(tests.has_value());
  EXPECT_EQ(tests->failed, 2);

  options.loop.max_iterations = 3;
  verifier = std::make_unique<StubVerifier>("command: make check");
  verifier->then(Outcome::pass);
  agent = StubAgent();
  agent.push(answer("three"));
  const auto second_run = run(resumed->conversation, resumed->state, record.session);
  EXPECT_EQ(second_run.status, Status::completed);
  EXPECT_THAT(agent.seen.at(0).back().content,
              HasSubstr("regression: tests::case_3 passed in attempt 1, fails now"));
  EXPECT_THAT(agent.seen.at(0).back().content, HasSubstr("failing tests: 3 → 2"));
}

TEST_F(StoreJournalTest, CountsTheRunnerDidNotGiveAreRecordedAsUnknown) {
  // go test without -v names its failures, never how many passed.
  verifier->then(Outcome::fail, "test_failed", runner_output("go_fail3.txt"), "exit 1");
  agent.push(answer("one"));
  options.loop.max_iterations = 1;
  const auto session = new_session();
  ASSERT_EQ(
      run({Message{.role = Role::user, .content = options.goal}}, LoopState(), session).status,
      Status::budget_exhausted);

  auto record = load();
  ASSERT_EQ(record.verdicts.size(), 1u);
  const auto stored = nlohmann::json::parse(record.verdicts[0].evidence_json);
  EXPECT_EQ(stored["tests"]["failed"], 3);
  EXPECT_TRUE(stored["tests"]["passed"].is_null());
  EXPECT_TRUE(stored["tests"]["total"].is_null());

  const auto resumed = resume_from_record(record);
  ASSERT_TRUE(resumed) << resumed.error().message;
  const auto& tests = resumed->state.attempts.at(0).verdicts.at(0).tests;
  ASSERT_TRUE(tests.has_value());
  EXPECT_EQ(tests->failed, 3);
  EXPECT_EQ(tests->passed, std::optional<int>());
  EXPECT_EQ(tests->total, std::optional<int>());
}

TEST_F(StoreJournalTest, ADamagedRecordResumesWithDefaultsForWhatItCannotRead) {
  verifier->then(Outcome::fail, "test_failed", runner_output("cargo_fail3.txt"), "exit 101");
  agent.push(answer("one"));
  options.loop.max_iterations = 1;
  const auto session = new_session();
  ASSERT_EQ(
      run({Message{.role = Role::user, .content = options.goal}}, LoopState(), session).status,
      Status::budget_exhausted);

  // What a damaged or hand-edited store may hand back: every field of the wrong type, numbers
  // far outside an int. nlohmann's value() threw on these, and 1e99 converted to int is undefined.
  auto record = load();
  ASSERT_EQ(record.verdicts.size(), 1u);
  record.verdicts[0].evidence_json =
      R"({"command":7,"exit_code":1e99,"duration_ms":"x","runs":"2","passes":-3,
          "started_at":[],"tests":{"runner":{},"failed":1e99,"passed":"1","total":12}})";
  record.session.resume_json =
      R"({"next_iteration":"x","conversation":[],"feedback_given":{},"runtime_summary":5})";
  const auto resumed = resume_from_record(record);
  ASSERT_TRUE(resumed) << resumed.error().message;
  const verify::Verdict& verdict = resumed->state.attempts.at(0).verdicts.at(0);
  ASSERT_TRUE(verdict.evidence.has_value());
  EXPECT_EQ(verdict.evidence->command, "");
  EXPECT_EQ(verdict.evidence->exit_code, std::nullopt);
  EXPECT_EQ(verdict.evidence->runs, 1);
  EXPECT_EQ(verdict.evidence->passes, 0);
  ASSERT_TRUE(verdict.tests.has_value());
  EXPECT_EQ(verdict.tests->failed, 0);
  EXPECT_EQ(verdict.tests->total, 12);
  EXPECT_EQ(resumed->state.next_iteration, 2);

  record.session.resume_json = R"({"next_iteration":1e99,"conversation":[]})";
  const auto again = resume_from_record(record);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->state.next_iteration, 2);
}

} // namespace
} // namespace ralph::loop
