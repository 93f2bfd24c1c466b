// What a chat records to go on from: its conversation, its goal and what was added for the next
// one, read back from a record that may be damaged.
#include "ralph/app/chat/chat_state.h"

#include <gtest/gtest.h>

namespace ralph::app {
namespace {

TEST(ChatState, RoundTripsThroughItsJson) {
  ChatState state;
  state.conversation = {Message{.role = Role::user, .content = "hi"},
                        Message{.role = Role::assistant, .content = "hello"}};
  ChatGoal goal;
  goal.text = "make it pass";
  goal.session_id = "s-1";
  goal.held = true;
  goal.reason = "paused after attempt 1";
  goal.settings.verify_commands = {"make check"};
  goal.settings.judge = "anthropic/judge";
  goal.settings.budgets = {{.key = "loop.max_iterations", .value = "5", .flag = "/budget"}};
  state.goal = goal;
  state.next.verify_commands = {"make lint"};

  const auto back = chat_state_from_json(chat_state_to_json(state), "chat");
  ASSERT_TRUE(back.has_value()) << back.error().message;
  ASSERT_EQ(back->conversation.size(), 2U);
  EXPECT_EQ(back->conversation[1].content, "hello");
  ASSERT_TRUE(back->goal.has_value());
  EXPECT_EQ(back->goal->session_id, "s-1");
  EXPECT_TRUE(back->goal->held);
  EXPECT_EQ(back->goal->status, Status::active);
  EXPECT_EQ(back->goal->settings.judge, "anthropic/judge");
  EXPECT_EQ(back->goal->settings.budgets.at(0).value, "5");
  EXPECT_EQ(back->next.verify_commands.at(0), "make lint");
}

TEST(ChatState, ARunsResumePointIsNotAChat) {
  const auto read = chat_state_from_json(R"({"next_iteration": 2, "conversation": []})", "chat x");
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().message, "chat x: not a chat's record");
}

TEST(ChatState, FieldsOfTheWrongTypeReadAsAbsentNotAsAThrow) {
  const auto read = chat_state_from_json(
      R"({"chat":true,"conversation":[],"next":{"verify_commands":"make","judge":3,
          "budgets":[{"key":1,"value":"5"}]},
          "goal":{"text":"fix it","status":7,"held":"yes","session_id":null}})",
      "chat x");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->next.verify_commands.empty());
  EXPECT_EQ(read->next.judge, "");
  ASSERT_EQ(read->next.budgets.size(), 1u);
  EXPECT_EQ(read->next.budgets[0].key, "");
  ASSERT_TRUE(read->goal);
  EXPECT_EQ(read->goal->text, "fix it");
  EXPECT_EQ(read->goal->status, Status::active);
  EXPECT_FALSE(read->goal->held);
  EXPECT_FALSE(chat_state_from_json(R"({"chat":"yes","conversation":[]})", "chat x"));
}

} // namespace
} // namespace ralph::app
