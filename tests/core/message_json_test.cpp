#include "ralph/core/message_json.h"

#include <gtest/gtest.h>

namespace ralph {
namespace {

TEST(MessageJson, RoundTripsEveryField) {
  std::vector<Message> messages(4);
  messages[0].role = Role::user;
  messages[0].content = "Ünïcödé goal";
  messages[1].role = Role::assistant;
  messages[1].content = "";
  messages[1].tool_calls = {{"call_1", "shell", R"({"command": "ls"})"},
                            {"call_2", "read_file", "not json at all"}};
  messages[1].thinking = {{.thinking = "thinking it over", .signature = "sig=="},
                          {.redacted = true, .redacted_data = "opaque"}};
  messages[2].role = Role::tool;
  messages[2].tool_call_id = "call_1";
  messages[2].tool_name = "shell";
  messages[2].content = "exit code: 1";
  messages[2].is_error = true;
  messages[3].role = Role::system;
  messages[3].content = "rules";

  const auto back = messages_from_json(messages_to_json(messages), "test");
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->size(), 4u);
  EXPECT_EQ((*back)[0].content, "Ünïcödé goal");
  EXPECT_EQ((*back)[1].tool_calls[1].arguments, "not json at all");
  EXPECT_EQ((*back)[1].thinking[0].signature, "sig==");
  EXPECT_TRUE((*back)[1].thinking[1].redacted);
  EXPECT_EQ((*back)[1].thinking[1].redacted_data, "opaque");
  EXPECT_EQ((*back)[2].tool_call_id, "call_1");
  EXPECT_TRUE((*back)[2].is_error);
  EXPECT_EQ((*back)[3].role, Role::system);
}

TEST(MessageJson, InvalidUtf8IsReplacedNotThrown) {
  std::vector<Message> messages(1);
  messages[0].content = "bad \xFF byte";
  const auto back = messages_from_json(messages_to_json(messages), "test");
  ASSERT_TRUE(back);
  EXPECT_EQ((*back)[0].content, "bad \xEF\xBF\xBD byte");
}

TEST(MessageJson, MalformedDocumentsNameWhatAndWhere) {
  EXPECT_FALSE(messages_from_json("{", "resume state"));
  EXPECT_FALSE(messages_from_json("{}", "resume state"));
  const auto bad_role = messages_from_json(R"([{"role":"robot"}])", "resume state");
  ASSERT_FALSE(bad_role);
  EXPECT_NE(bad_role.error().message.find("resume state: message 0"), std::string::npos);
}

TEST(MessageJson, FieldsOfTheWrongTypeInADamagedRecordReadAsAbsent) {
  // nlohmann's value() threw type_error on these, out of messages_from_json.
  const auto messages = messages_from_json(
      R"([{"role":"tool","content":5,"tool_call_id":"c1","is_error":"yes",
           "tool_calls":{"id":"x"},"thinking":[{"thinking":"t","redacted":"no"},7]}])",
      "resume state");
  ASSERT_TRUE(messages) << messages.error().message;
  ASSERT_EQ(messages->size(), 1u);
  const Message& message = messages->front();
  EXPECT_EQ(message.content, "");
  EXPECT_EQ(message.tool_call_id, "c1");
  EXPECT_FALSE(message.is_error);
  EXPECT_TRUE(message.tool_calls.empty());
  ASSERT_EQ(message.thinking.size(), 2u);
  EXPECT_EQ(message.thinking[0].thinking, "t");
  EXPECT_FALSE(message.thinking[0].redacted);
  EXPECT_EQ(message.thinking[1].thinking, "");
}

} // namespace
} // namespace ralph
