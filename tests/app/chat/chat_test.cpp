// A chat as a library object: ordinary turns, a goal run verifier-first to its end, and where it
// stands (status as data) along the way.
#include "app/chat/chat_fixture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::app {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr const char* k_check = "test -f done.txt";

TEST(Chat, AnOrdinaryTurnIsAnsweredOnceUnverifiedAndRecordedAsTheChatsAttempt) {
  ChatFixture f;
  ChatRequest request =
      f.request(text_turn("Hello! What shall we do?") + "," + text_turn("You said hello."));
  // A verifier that fails everything: an ordinary turn never meets it.
  request.config.verify.commands = {"false"};
  auto chat = f.open(std::move(request));
  ASSERT_TRUE(chat) << chat.error().message;

  const auto first = (*chat)->say("hello there", CancelToken());
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->status, Status::completed) << first->reason;
  EXPECT_EQ(first->answer, "Hello! What shall we do?");
  EXPECT_FALSE(first->verified);
  EXPECT_EQ(first->session_id, (*chat)->id());
  EXPECT_EQ(f.observer.count<event::VerdictGiven>(), 0);
  EXPECT_EQ(f.observer.count<event::VerificationSkipped>(), 0) << "not said after every answer";
  EXPECT_GT(f.observer.count<event::TextDelta>(), 0) << "the answer streams to the observer";

  const auto second = (*chat)->say("what did I say?", CancelToken());
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->answer, "You said hello.");

  const store::SessionRecord record = f.record((*chat)->id());
  EXPECT_EQ(record.session.kind, store::SessionKind::chat);
  EXPECT_EQ(record.session.goal, "hello there") << "a chat is named by what was said first";
  ASSERT_EQ(record.attempts.size(), 2u) << "one attempt per turn, numbered on";
  EXPECT_EQ(record.attempts[1].iteration, 2);
  EXPECT_EQ(record.attempts[1].answer, "You said hello.");
  EXPECT_FALSE(record.attempts[1].verified);
  EXPECT_TRUE(record.verdicts.empty());
  const ChatState state = f.state_of((*chat)->id());
  ASSERT_EQ(state.conversation.size(), 4u) << "the second turn was said in the same conversation";
  EXPECT_EQ(state.conversation[1].content, "Hello! What shall we do?");
  EXPECT_FALSE((*chat)->status().goal);
}

TEST(Chat, AGoalRunsVerifierFirstToCompletionAsASessionUnderTheChat) {
  ChatFixture f;
  ChatRequest request = f.request(
      // Attempt 1 claims too early; attempt 2 makes the file, checks it, then claims.
      claim_turn("All done.") + "," + write_turn("done.txt", "yes") + "," + shell_turn(k_check) +
      "," + claim_turn("Made done.txt; the check passes.") + "," + text_turn("You are welcome."));
  request.config.verify.commands = {k_check};
  auto opened = f.open(std::move(request));
  ASSERT_TRUE(opened) << opened.error().message;
  Chat& chat = **opened;

  chat.set_goal("make done.txt");
  const ChatStatus before = chat.status();
  ASSERT_TRUE(before.goal);
  EXPECT_EQ(before.goal->text, "make done.txt");
  EXPECT_EQ(before.goal->phase, GoalPhase::starting);
  EXPECT_TRUE(before.goal->session_id.empty()) << "no session before its first attempt";
  EXPECT_EQ(before.budgets.attempt, 0);
  EXPECT_EQ(before.budgets.max_iterations, 3);

  std::vector<GoalStatus> seen;
  f.observer.on_each = [&](const Event& event) {
    if (event.get<event::AttemptStarted>() != nullptr ||
        event.get<event::VerifierStarted>() != nullptr) {
      seen.push_back(*chat.status().goal);
    }
  };
  const auto report = chat.work_on_goal(CancelToken());
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->status, Status::completed) << report->reason;
  EXPECT_TRUE(report->verified);
  EXPECT_EQ(report->iterations, 2);
  EXPECT_EQ(f.dir.read("work/done.txt"), "yes");

  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front().phase, GoalPhase::running);
  EXPECT_EQ(seen.front().attempt, 1);
  EXPECT_EQ(seen.front().max_attempts, 3);
  EXPECT_FALSE(seen.front().verifying);
  EXPECT_EQ(seen.front().session_id, report->session_id);
  EXPECT_EQ(seen.back().attempt, 2);
  EXPECT_TRUE(seen.back().verifying) << "the last thing seen was attempt 2's verifiers starting";

  const ChatStatus after = chat.status();
  ASSERT_TRUE(after.goal);
  EXPECT_EQ(after.goal->phase, GoalPhase::ended);
  EXPECT_EQ(after.goal->status, Status::completed);
  EXPECT_FALSE(after.goal->reason.empty());
  EXPECT_EQ(after.last_verdicts.attempt, 2);
  ASSERT_FALSE(after.last_verdicts.verdicts.empty());
  for (const event::VerdictGiven& verdict : after.last_verdicts.verdicts) {
    EXPECT_EQ(verdict.result, verify::Outcome::pass) << verdict.verifier;
  }
  EXPECT_THAT(f.observer.verifiers_of(1), ::testing::Contains("command: " + std::string(k_check)));
  EXPECT_EQ(after.budgets.attempt, 2);
  EXPECT_GT(after.budgets.tokens, 0);

  // The goal is a session of its own under the chat; the chat goes on knowing how it ended.
  const store::SessionRecord goal = f.record(report->session_id);
  EXPECT_EQ(goal.session.kind, store::SessionKind::goal);
  EXPECT_EQ(goal.session.parent_id, chat.id());
  EXPECT_EQ(goal.session.status, Status::completed);
  EXPECT_EQ(goal.attempts.size(), 2u);
  const ChatState state = f.state_of(chat.id());
  ASSERT_EQ(state.conversation.size(), 2u);
  EXPECT_EQ(state.conversation[0].content, "Goal: make done.txt");
  EXPECT_EQ(state.conversation[1].content, "Made done.txt; the check passes.");
  const auto thanks = chat.say("thanks", CancelToken());
  ASSERT_TRUE(thanks) << thanks.error().message;
  EXPECT_EQ(thanks->answer, "You are welcome.");
}

TEST(Chat, WhatIsAddedWhileNoGoalIsActiveIsForTheNextGoal) {
  ChatFixture f;
  auto chat = f.open(f.request(text_turn("unused")));
  ASSERT_TRUE(chat) << chat.error().message;

  EXPECT_EQ((*chat)->add_verify("make check"), ChangeFor::next_goal);
  const auto budgets =
      (*chat)->change_budgets({{.key = "loop.max_iterations", .value = "5", .flag = "/budget"},
                               {.key = "budget.max_time", .value = "30m", .flag = "/budget"}});
  ASSERT_TRUE(budgets) << budgets.error().message;
  EXPECT_EQ(*budgets, ChangeFor::next_goal);
  EXPECT_EQ((*chat)->status().budgets.max_iterations, 5);
  EXPECT_EQ((*chat)->status().budgets.max_time, 30min);

  (*chat)->set_goal("ship it");
  const ChatStatus status = (*chat)->status();
  ASSERT_TRUE(status.goal);
  EXPECT_THAT(status.goal->added_commands, ElementsAre("make check"));
  EXPECT_EQ(status.budgets.max_iterations, 5) << "the next goal took what was added";
  EXPECT_EQ((*chat)->add_verify("make lint"), ChangeFor::goal);
  EXPECT_THAT((*chat)->status().goal->added_commands, ElementsAre("make check", "make lint"));
}

TEST(Chat, MistakesAreErrorsAndChangeNothing) {
  ChatFixture f;
  auto chat = f.open(f.request(text_turn("unused")));
  ASSERT_TRUE(chat) << chat.error().message;

  const auto not_a_budget =
      (*chat)->change_budgets({{.key = "loop.feedback", .value = "append", .flag = "/budget"}});
  ASSERT_FALSE(not_a_budget);
  EXPECT_THAT(not_a_budget.error().message, HasSubstr("loop.feedback is not a budget"));
  const auto bad_value =
      (*chat)->change_budgets({{.key = "budget.max_time", .value = "soon", .flag = "/budget"}});
  ASSERT_FALSE(bad_value);
  EXPECT_THAT(bad_value.error().message, HasSubstr("/budget"));
  EXPECT_EQ((*chat)->status().budgets.max_time, 0ms) << "nothing of a refused change applies";

  // A judge whose provider has no key: the goal cannot start, and waits saying why.
  ASSERT_TRUE((*chat)->set_judge("anthropic/judge-model"));
  (*chat)->set_goal("make done.txt");
  const auto ran = (*chat)->work_on_goal(CancelToken());
  ASSERT_FALSE(ran);
  EXPECT_THAT(ran.error().message, HasSubstr("ANTHROPIC_API_KEY"));
  const ChatStatus status = (*chat)->status();
  ASSERT_TRUE(status.goal);
  EXPECT_EQ(status.goal->phase, GoalPhase::held);
  EXPECT_THAT(status.goal->reason, HasSubstr("it could not start"));
  EXPECT_EQ(status.goal->added_judge, "anthropic/judge-model");
  EXPECT_TRUE((*chat)->goal_held());
}

TEST(Chat, ARecordThatCannotBeWrittenIsToldAndTheChatGoesOn) {
  ChatFixture f;
  RefusingStore refusing(*f.store);
  auto chat = Chat::open(f.runtime, f.request(text_turn("Still here.")),
                         {.io = &f.io, .store = &refusing}, f.observer, CancelToken());
  ASSERT_TRUE(chat) << chat.error().message;
  EXPECT_TRUE(f.observer.record_failures.empty());

  refusing.refuse_updates = true;
  EXPECT_EQ((*chat)->add_verify("make check"), ChangeFor::next_goal);
  ASSERT_EQ(f.observer.record_failures.size(), 1u) << "the change is recorded at once";
  EXPECT_EQ(f.observer.record_failures[0], "database or disk is full");
  refusing.refuse_updates = false;
  const auto turn = (*chat)->say("are you there?", CancelToken());
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->answer, "Still here.");
  EXPECT_EQ(f.state_of((*chat)->id()).next.verify_commands.size(), 1u)
      << "written with the turn's end";

  refusing.refuse_updates = true;
  (*chat)->close(false);
  EXPECT_EQ(f.observer.record_failures.size(), 2u);
}

TEST(Chat, AChatIsARecordedSessionAndOpensOnlyWhatIsAChat) {
  ChatFixture f;
  ChatRequest unrecorded = f.request(text_turn("unused"));
  unrecorded.config.store.enabled = false;
  const auto off = Chat::open(f.runtime, unrecorded, {.io = &f.io}, f.observer, CancelToken());
  ASSERT_FALSE(off);
  EXPECT_EQ(off.error().kind, ErrorKind::config);
  EXPECT_THAT(off.error().message, HasSubstr("store.enabled is false"));

  ChatRequest unknown_agent = f.request(text_turn("unused"));
  unknown_agent.config.agent.cli = "no-such-cli";
  const auto agent = f.open(unknown_agent);
  ASSERT_FALSE(agent);
  EXPECT_THAT(agent.error().message, HasSubstr("unknown agent 'no-such-cli'"));
  const auto listed = f.store->list_sessions();
  ASSERT_TRUE(listed);
  EXPECT_TRUE(listed->empty()) << "a chat that cannot talk to its agent is not recorded";

  ChatRequest missing = f.request(text_turn("unused"));
  missing.resume_id = "nope";
  const auto nope = f.open(missing);
  ASSERT_FALSE(nope);
  EXPECT_EQ(nope.error().kind, ErrorKind::usage);
  EXPECT_THAT(nope.error().message, HasSubstr("--resume nope: no session nope in this workspace"));
}

TEST(Chat, ATwoMinuteChatRecordsTwoMinutes) {
  ChatFixture f;
  auto opened = f.open(f.request(text_turn("Hello!") + "," + text_turn("Still here.")));
  ASSERT_TRUE(opened) << opened.error().message;
  Chat& chat = **opened;
  // Each answer takes its model half a minute; the person reads and thinks for the rest.
  f.observer.on_each = [&](const Event& event) {
    if (event.get<event::ModelStarted>() != nullptr) {
      f.clock.advance(30s);
    }
  };
  ASSERT_TRUE(chat.say("hello", CancelToken()));
  f.clock.advance(30s);
  ASSERT_TRUE(chat.say("are you there?", CancelToken()));
  f.clock.advance(30s);
  chat.close(false);

  EXPECT_EQ(f.record(chat.id()).session.elapsed_ms, 120000);
}

} // namespace
} // namespace ralph::app
