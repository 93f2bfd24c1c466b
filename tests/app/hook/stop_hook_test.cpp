// The Stop hook's decision as a library: real command verifiers and a scripted judge in a temp
// workspace, its SQLite store, and a fake clock for the rounds' time budgets.
#include "support/fake_clock.h"
#include "support/temp_dir.h"

#include "ralph/app/hook/stop_hook.h"
#include "ralph/store/sqlite_session_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::app {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace std::chrono_literals;

constexpr const char* k_check = "grep -qx 42 answer.txt";

// A judge that reasons in a line, then fails the answer.
constexpr const char* k_failing_judge = R"({"model": "judge", "turns": [
  {"text": "The file holds 41.\nFAIL [goal_missed]: answer.txt holds 41, not 42"}]})";

struct Fixture {
  testing::TempDir dir;
  std::filesystem::path workspace = std::filesystem::canonical(dir.path());
  session::Runtime runtime{session::Environment::of({})};
  engine::BlockingIo io;
  testing::FakeClock clock;
  Config config;

  Fixture() { config.verify.commands = {k_check}; }

  // A stop of Claude Code's session s1 with `answer.txt` holding `content`.
  StopRequest stop(const std::string& content, bool follows_block = false) const {
    dir.write("answer.txt", content);
    return {.agent = "claude",
            .agent_session = "s1",
            .workspace = workspace,
            .prompt = "Write 42 to answer.txt.",
            .answer = "Done: answer.txt holds 42.",
            .follows_block = follows_block,
            .config = config};
  }

  Result<StopDecision> decide(const StopRequest& request) {
    return decide_stop(runtime, request, io, clock, CancelToken());
  }

  store::SessionRecord record(const std::string& id = "claude-s1") const {
    auto store = store::SqliteSessionStore::open(workspace / ".ralph" / "ralph.db");
    EXPECT_TRUE(store) << store.error().message;
    auto record = (*store)->load(id);
    EXPECT_TRUE(record && *record) << "no session " << id;
    return record && *record ? std::move(**record) : store::SessionRecord{};
  }
};

TEST(StopHook, APassingAnswerLetsTheStopThroughVerifiedAndRecordsACompletedAttempt) {
  Fixture f;
  const auto decision = f.decide(f.stop("42\n"));
  ASSERT_TRUE(decision) << decision.error().message;
  EXPECT_FALSE(decision->block);
  EXPECT_THAT(decision->message, IsEmpty()) << "a verified stop goes through silently";
  EXPECT_EQ(decision->session_id, "claude-s1");

  const store::SessionRecord record = f.record();
  EXPECT_EQ(record.session.status, Status::completed);
  EXPECT_TRUE(record.session.verified);
  EXPECT_EQ(record.session.goal, "Write 42 to answer.txt.");
  EXPECT_EQ(record.session.model, "hook/claude");
  ASSERT_EQ(record.attempts.size(), 1u);
  EXPECT_TRUE(record.attempts[0].finished);
  EXPECT_TRUE(record.attempts[0].passed);
  EXPECT_EQ(record.attempts[0].answer, "Done: answer.txt holds 42.");
  ASSERT_EQ(record.verdicts.size(), 1u);
  EXPECT_EQ(record.verdicts[0].result, Outcome::pass);
}

TEST(StopHook, AFailingAnswerBlocksWithFeedbackNamingTheFailingCommand) {
  Fixture f;
  const auto decision = f.decide(f.stop("41\n"));
  ASSERT_TRUE(decision) << decision.error().message;
  EXPECT_TRUE(decision->block);
  EXPECT_THAT(decision->feedback, HasSubstr(k_check));
  EXPECT_THAT(decision->feedback, HasSubstr("attempt 1 of 3"));

  const store::SessionRecord record = f.record();
  EXPECT_EQ(record.session.status, Status::active) << "the agent goes on";
  ASSERT_EQ(record.attempts.size(), 1u);
  EXPECT_FALSE(record.attempts[0].passed);
  EXPECT_EQ(record.attempts[0].feedback, decision->feedback) << "what the agent was told";
}

TEST(StopHook, TheLastFailingStopOfARoundIsLetThroughWhenTheIterationBudgetRunsOut) {
  Fixture f;
  f.config.loop.max_iterations = 2;
  const auto first = f.decide(f.stop("41\n"));
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_TRUE(first->block);
  const auto second = f.decide(f.stop("41\n", true));
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_FALSE(second->block);
  EXPECT_THAT(second->message, HasSubstr("verification still fails after 2 attempts; the "
                                         "iteration budget (2 attempts) ran out"));
  EXPECT_THAT(second->message, HasSubstr("(session claude-s1)"));
  EXPECT_THAT(second->message, HasSubstr(k_check)) << "the failures, for the person";

  const store::SessionRecord record = f.record();
  EXPECT_EQ(record.session.status, Status::budget_exhausted);
  EXPECT_FALSE(record.session.verified);
  EXPECT_EQ(record.attempts.size(), 2u);
}

TEST(StopHook, TheRoundsTimeBudgetOnTheClockLetsAFailingStopThrough) {
  Fixture f;
  f.config.budget.max_time = 60s;
  f.config.loop.max_iterations = 10;
  ASSERT_TRUE(f.decide(f.stop("41\n")).value().block);
  f.clock.advance(59s);
  ASSERT_TRUE(f.decide(f.stop("41\n", true)).value().block) << "59 s of 60: time is left";
  f.clock.advance(1s);
  const auto late = f.decide(f.stop("41\n", true));
  ASSERT_TRUE(late) << late.error().message;
  EXPECT_FALSE(late->block);
  EXPECT_THAT(late->message, HasSubstr("verification still fails after 3 attempts; the time "
                                       "budget (60 s) ran out"));
  EXPECT_EQ(f.record().session.status, Status::budget_exhausted);
}

TEST(StopHook, AStopThatFollowsNoBlockAfterTheSessionEndedStartsARoundWithItsOwnBudgets) {
  Fixture f;
  f.config.loop.max_iterations = 2;
  f.config.budget.max_time = 60s;
  ASSERT_TRUE(f.decide(f.stop("41\n")).value().block);
  ASSERT_FALSE(f.decide(f.stop("41\n", true)).value().block) << "the first round's budget";
  f.clock.advance(10min); // the person writes the next prompt

  const auto next = f.decide(f.stop("41\n"));
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_TRUE(next->block) << "neither the attempts nor the time of the last round count";
  EXPECT_THAT(next->feedback, HasSubstr("attempt 1 of 2"));
  const store::SessionRecord record = f.record();
  EXPECT_EQ(record.session.status, Status::active);
  EXPECT_EQ(record.attempts.size(), 3u) << "one session across the rounds";
}

TEST(StopHook, AVerifierThatCannotRunIsAnErrorAndTheAttemptIsRecordedUnchecked) {
  Fixture f;
  f.config.verify.commands = {"no-such-command-xyz"};
  const auto decision = f.decide(f.stop("42\n"));
  ASSERT_FALSE(decision) << "nothing decided: the agent may stop";
  EXPECT_EQ(decision.error().kind, ErrorKind::subprocess);
  EXPECT_THAT(decision.error().message,
              HasSubstr("could not verify the answer, so the agent may stop:"));
  EXPECT_THAT(decision.error().message, HasSubstr("no-such-command-xyz"));

  const store::SessionRecord record = f.record();
  EXPECT_EQ(record.session.status, Status::active);
  EXPECT_EQ(record.session.reason, "the hook could not verify");
  ASSERT_EQ(record.attempts.size(), 1u);
  EXPECT_TRUE(record.attempts[0].finished);
  EXPECT_FALSE(record.attempts[0].passed);
  ASSERT_EQ(record.verdicts.size(), 1u);
  EXPECT_EQ(record.verdicts[0].result, Outcome::error);
}

TEST(StopHook, TheJudgesVerdictIsRecordedWithTheAttempt) {
  Fixture f;
  f.config.verify.commands.clear();
  f.config.judge.model = "scripted/" + f.dir.write("judge.json", k_failing_judge).string();
  const auto decision = f.decide(f.stop("41\n"));
  ASSERT_TRUE(decision) << decision.error().message;
  EXPECT_TRUE(decision->block);
  EXPECT_THAT(decision->feedback, HasSubstr("answer.txt holds 41, not 42"));

  const store::SessionRecord record = f.record();
  ASSERT_EQ(record.verdicts.size(), 1u);
  const store::VerdictRow& verdict = record.verdicts[0];
  EXPECT_EQ(verdict.iteration, 1);
  EXPECT_EQ(verdict.kind, "judge");
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category, "goal_missed");
  EXPECT_EQ(verdict.feedback, "answer.txt holds 41, not 42");
  EXPECT_EQ(verdict.reasoning, "The file holds 41.");
  EXPECT_GT(record.session.input_tokens, 0) << "the judge's usage counts in the session";
}

TEST(StopHook, ConfigurationMistakesAreErrorsBeforeAnythingIsRecorded) {
  Fixture f;
  StopRequest no_store = f.stop("42\n");
  no_store.config.store.enabled = false;
  const auto store_off = f.decide(no_store);
  ASSERT_FALSE(store_off);
  EXPECT_EQ(store_off.error().kind, ErrorKind::config);
  EXPECT_THAT(store_off.error().message, HasSubstr("store.enabled is false"));

  StopRequest verifier_first = f.stop("42\n");
  verifier_first.config.evidence.enabled = true;
  const auto evidence = f.decide(verifier_first);
  ASSERT_FALSE(evidence);
  EXPECT_THAT(evidence.error().message, HasSubstr("--verifier-first"));

  StopRequest unverified = f.stop("42\n");
  unverified.config.verify.commands.clear();
  const auto none = f.decide(unverified);
  ASSERT_FALSE(none);
  EXPECT_THAT(none.error().message, HasSubstr("no verifier is configured"));

  auto store = store::SqliteSessionStore::open(f.workspace / ".ralph" / "ralph.db");
  ASSERT_TRUE(store) << store.error().message;
  EXPECT_THAT((*store)->list_sessions().value(), IsEmpty());
}

TEST(StopHook, WarningsAboutTheConfigurationComeBeforeTheDecisionAndWithIt) {
  Fixture f;
  f.config.verify.protect = {"no-such-dir/*.txt"};
  auto hook = StopHook::prepare(f.runtime, f.stop("42\n"), f.io);
  ASSERT_TRUE(hook) << hook.error().message;
  ASSERT_EQ((*hook)->warnings().size(), 1u);
  EXPECT_THAT((*hook)->warnings()[0], HasSubstr("no file matches"));
  const auto decision = (*hook)->decide(f.clock, CancelToken());
  ASSERT_TRUE(decision) << decision.error().message;
  EXPECT_EQ(decision->warnings, (*hook)->warnings());
  EXPECT_FALSE((*hook)->decide(f.clock, CancelToken())) << "a stop is decided once";
}

TEST(StopHook, TheSessionIdKeepsOnlyCharactersThatCanNameAFolder) {
  Fixture f;
  StopRequest request = f.stop("42\n");
  request.agent = "codex";
  request.agent_session = "../a b/c";
  const auto decision = f.decide(request);
  ASSERT_TRUE(decision) << decision.error().message;
  EXPECT_EQ(decision->session_id, "codex-.._a_b_c");
  EXPECT_EQ(f.record("codex-.._a_b_c").session.model, "hook/codex");
}

} // namespace
} // namespace ralph::app
