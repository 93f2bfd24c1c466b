// A chat's goal held and going on: after its attempt on request, with settings changed mid-goal,
// and across a chat closed and opened again by its id.
#include "app/chat/chat_fixture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::app {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

constexpr const char* k_check = "test -f done.txt";

// Attempt 1 claims too early; a later attempt makes the file, checks it, then claims.
std::string goal_turns() {
  return claim_turn("All done.") + "," + write_turn("done.txt", "yes") + "," + shell_turn(k_check) +
         "," + claim_turn("Made done.txt.");
}

// Holds the goal as its first attempt starts (as /pause would), with 30 s gone by then.
void hold_at_first_attempt(ChatFixture& f, Chat& chat) {
  f.observer.on_each = [&](const Event& event) {
    if (event.get<event::AttemptStarted>() != nullptr && event.iteration == 1) {
      f.clock.advance(30s);
      EXPECT_TRUE(chat.request_hold());
    }
  };
}

TEST(ChatHold, AHoldEndsTheGoalAfterItsAttemptAndReleaseGoesOnFromItsRecord) {
  ChatFixture f;
  ChatRequest request = f.request(goal_turns());
  request.config.verify.commands = {k_check};
  auto opened = f.open(std::move(request));
  ASSERT_TRUE(opened) << opened.error().message;
  Chat& chat = **opened;
  chat.set_goal("make done.txt");
  hold_at_first_attempt(f, chat);

  const auto held = chat.work_on_goal(CancelToken());
  ASSERT_TRUE(held) << held.error().message;
  EXPECT_EQ(held->status, Status::interrupted) << "held: " << held->reason;
  EXPECT_EQ(held->reason, "paused after attempt 1");
  EXPECT_FALSE(f.observer.verifiers_of(1).empty()) << "the attempt was verified before the hold";
  EXPECT_TRUE(chat.goal_held());
  EXPECT_FALSE(chat.request_hold()) << "held already";
  ChatStatus status = chat.status();
  ASSERT_TRUE(status.goal);
  EXPECT_EQ(status.goal->phase, GoalPhase::held);
  EXPECT_EQ(status.goal->reason, "paused after attempt 1");
  EXPECT_EQ(status.last_verdicts.attempt, 1);
  EXPECT_THAT(status.last_verdicts.verdicts,
              Contains(::testing::Field(&event::VerdictGiven::result, verify::Outcome::fail)));
  EXPECT_EQ(status.budgets.attempt, 1);
  EXPECT_EQ(status.budgets.elapsed, 30s) << "the goal's time by the chat's clock";

  f.observer.on_each = nullptr;
  ASSERT_TRUE(chat.release_hold());
  EXPECT_FALSE(chat.goal_held());
  EXPECT_EQ(chat.status().goal->phase, GoalPhase::starting);
  const auto done = chat.work_on_goal(CancelToken());
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(done->status, Status::completed) << done->reason;
  EXPECT_EQ(done->session_id, held->session_id) << "the same goal session goes on";
  EXPECT_FALSE(f.observer.verifiers_of(2).empty()) << "attempt 2 follows; 1 is not run again";
  EXPECT_EQ(f.record(done->session_id).attempts.size(), 2u);
  status = chat.status();
  EXPECT_EQ(status.goal->phase, GoalPhase::ended);
  EXPECT_EQ(status.budgets.attempt, 2);
  EXPECT_EQ(status.budgets.elapsed, 30s) << "the first run's time is carried";
}

TEST(ChatHold, AVerifierAddedDuringAnAttemptAppliesFromTheNextAttempt) {
  ChatFixture f;
  ChatRequest request = f.request(
      claim_turn("All done.") + "," + write_turn("done.txt", "yes") + "," + shell_turn(k_check) +
      "," + claim_turn("Made done.txt.") + "," + write_turn("more.txt", "yes") + "," +
      shell_turn("test -f more.txt") + "," + claim_turn("Made more.txt too."));
  request.config.verify.commands = {k_check};
  auto opened = f.open(std::move(request));
  ASSERT_TRUE(opened) << opened.error().message;
  Chat& chat = **opened;
  chat.set_goal("make done.txt and more.txt");
  f.observer.on_each = [&](const Event& event) {
    if (event.get<event::AttemptStarted>() != nullptr && event.iteration == 1) {
      EXPECT_EQ(chat.add_verify("test -f more.txt"), ChangeFor::goal);
    }
  };

  const auto report = chat.work_on_goal(CancelToken());
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->status, Status::completed) << report->reason;
  EXPECT_EQ(f.observer.goes_on, 1) << "the run ended after attempt 1 and went on";
  const std::string added = "command: test -f more.txt";
  EXPECT_THAT(f.observer.verifiers_of(1), Not(Contains(added)));
  EXPECT_THAT(f.observer.verifiers_of(2), Contains(added)) << "and failed: no more.txt yet";
  EXPECT_THAT(f.observer.verifiers_of(3), Contains(added));
  EXPECT_EQ(f.dir.read("work/more.txt"), "yes");
  const ChatStatus status = chat.status();
  EXPECT_THAT(status.goal->added_commands, Contains("test -f more.txt"));
  EXPECT_EQ(f.record(report->session_id).attempts.size(), 3u) << "one goal session throughout";
}

TEST(ChatHold, AChatClosedWithAHeldGoalIsResumedByIdWithTheGoalHeldAndTheConversationKept) {
  ChatFixture f;
  ChatRequest request = f.request(text_turn("Noted: the vault.") + "," + claim_turn("All done."));
  request.config.verify.commands = {k_check};
  std::string chat_id;
  std::string goal_id;
  {
    auto opened = f.open(request);
    ASSERT_TRUE(opened) << opened.error().message;
    Chat& chat = **opened;
    chat_id = chat.id();
    ASSERT_TRUE(chat.say("remember the vault", CancelToken()));
    chat.set_goal("make done.txt");
    hold_at_first_attempt(f, chat);
    const auto held = chat.work_on_goal(CancelToken());
    ASSERT_TRUE(held) << held.error().message;
    goal_id = held->session_id;
    chat.close(false);
  }
  f.observer.on_each = nullptr;
  const store::SessionRecord closed = f.record(chat_id);
  EXPECT_EQ(closed.session.status, Status::completed);
  EXPECT_EQ(closed.session.owner_pid, 0) << "no process owns a closed chat";

  // The model goes on with a script of its own; everything else is as recorded.
  ChatRequest again{.workspace = f.workspace, .resume_id = chat_id};
  again.flags = {*Setting::parse(
      {.key = "model",
       .value = f.model("second.json", write_turn("done.txt", "yes") + "," + shell_turn(k_check) +
                                           "," + claim_turn("Made done.txt.")),
       .flag = "--model"})};
  auto resumed = f.open(again);
  ASSERT_TRUE(resumed) << resumed.error().message;
  Chat& chat = **resumed;
  EXPECT_EQ(chat.id(), chat_id);
  const ChatStatus status = chat.status();
  ASSERT_TRUE(status.goal);
  EXPECT_EQ(status.goal->phase, GoalPhase::held);
  EXPECT_EQ(status.goal->reason, "paused after attempt 1");
  EXPECT_EQ(status.goal->session_id, goal_id);
  const ChatState state = f.state_of(chat_id);
  ASSERT_EQ(state.conversation.size(), 2u);
  EXPECT_EQ(state.conversation[0].content, "remember the vault");
  EXPECT_EQ(state.conversation[1].content, "Noted: the vault.");
  EXPECT_EQ(f.record(chat_id).session.status, Status::active) << "open again";

  ASSERT_TRUE(chat.release_hold());
  const auto done = chat.work_on_goal(CancelToken());
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(done->status, Status::completed) << done->reason;
  EXPECT_EQ(done->session_id, goal_id);
  EXPECT_EQ(f.record(goal_id).attempts.size(), 2u) << "attempt 1 carried, attempt 2 run here";
  EXPECT_EQ(f.state_of(chat_id).conversation.size(), 4u) << "the goal's end joins the chat";
}

TEST(ChatHold, AGoalRunningWhenTheChatEndedWaitsHeldWhenTheChatIsOpenedAgain) {
  ChatFixture f;
  std::string chat_id;
  {
    auto opened = f.open(f.request(text_turn("unused")));
    ASSERT_TRUE(opened) << opened.error().message;
    chat_id = (*opened)->id();
    (*opened)->set_goal("make done.txt");
    (*opened)->close(true);
  }
  EXPECT_EQ(f.record(chat_id).session.status, Status::interrupted);
  auto resumed = f.open({.workspace = f.workspace, .resume_id = chat_id});
  ASSERT_TRUE(resumed) << resumed.error().message;
  const ChatStatus status = (*resumed)->status();
  ASSERT_TRUE(status.goal);
  EXPECT_EQ(status.goal->phase, GoalPhase::held);
  EXPECT_EQ(status.goal->reason, "the chat ended while it ran");
}

TEST(ChatHold, AResumedChatTakesItsRecordedConfigurationWithTheFlagsOverIt) {
  ChatFixture f;
  ChatRequest request = f.request(text_turn("unused"));
  request.config.agent.max_steps = 7;
  request.config.loop.max_iterations = 4;
  std::string chat_id;
  {
    auto opened = f.open(request);
    ASSERT_TRUE(opened) << opened.error().message;
    chat_id = (*opened)->id();
    (*opened)->close(false);
  }
  // The files changed since (a configuration of defaults here); a flag raises the attempts. The
  // chat is named by a prefix of its id, as `sessions show` takes one.
  ChatRequest again{.workspace = f.workspace, .resume_id = chat_id.substr(0, chat_id.size() - 4)};
  again.flags = {*Setting::parse({.key = "loop.max_iterations", .value = "6", .flag = "-n"})};
  auto resumed = f.open(again);
  ASSERT_TRUE(resumed) << resumed.error().message;
  EXPECT_EQ((*resumed)->id(), chat_id);
  EXPECT_EQ((*resumed)->config().agent.max_steps, 7) << "as recorded";
  EXPECT_EQ((*resumed)->config().loop.max_iterations, 6) << "the flag over it";
  EXPECT_EQ((*resumed)->config().model, request.config.model);
  const BudgetStatus budgets = (*resumed)->status().budgets;
  EXPECT_EQ(budgets.max_steps, 7);
  EXPECT_EQ(budgets.max_iterations, 6);

  // A goal's session is not a chat to resume.
  ChatRequest goal_request = f.request(claim_turn("All done."));
  goal_request.config.verify.commands = {"false"};
  goal_request.config.loop.max_iterations = 1;
  std::string goal_id;
  {
    auto other = f.open(goal_request);
    ASSERT_TRUE(other) << other.error().message;
    (*other)->set_goal("fails");
    const auto ended = (*other)->work_on_goal(CancelToken());
    ASSERT_TRUE(ended) << ended.error().message;
    goal_id = ended->session_id;
    (*other)->close(false);
  }
  const auto not_a_chat = f.open({.workspace = f.workspace, .resume_id = goal_id});
  ASSERT_FALSE(not_a_chat);
  EXPECT_THAT(not_a_chat.error().message, HasSubstr("a goal session, not a chat"));
}

} // namespace
} // namespace ralph::app
