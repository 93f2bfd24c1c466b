#include "llm/anthropic_request.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace ralph::llm {
namespace {

using nlohmann::json;

json build(const ChatRequest& request) {
  const std::string body = build_anthropic_body(request);
  json parsed = json::parse(body, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << body;
  return parsed;
}

ChatRequest basic_request(std::span<const Message> messages) {
  ChatRequest request;
  request.model = "claude-sonnet-4-5";
  request.system = "You are terse.";
  request.messages = messages;
  request.tools = {{"get_weather", "Current weather for one city",
                    R"({"type":"object","properties":{"city":{"type":"string"}}})"}};
  request.max_tokens = 1024;
  return request;
}

// user, assistant (thinking + text + two calls), two tool results (one failed), feedback text.
std::vector<Message> tool_round() {
  std::vector<Message> messages(5);
  messages[0].content = "Weather in Oslo and Lima?";
  messages[1].role = Role::assistant;
  messages[1].content = "Let me look that up.";
  messages[1].thinking = {{.thinking = "User wants weather.", .signature = "EqQBfakeSig=="},
                          {.redacted = true, .redacted_data = "EmwKAhgB"},
                          {.thinking = "unsigned reasoning from another provider"}};
  messages[1].tool_calls = {{"toolu_1", "get_weather", R"({"city": "Oslo", "unit": "c"})"},
                            {"toolu_2", "get_weather", "not json"}};
  messages[2].role = Role::tool;
  messages[2].tool_call_id = "toolu_1";
  messages[2].content = "-3 C, snow";
  messages[3].role = Role::tool;
  messages[3].tool_call_id = "toolu_2";
  messages[3].content = "invalid arguments";
  messages[3].is_error = true;
  messages[4].content = "Please be brief.";
  return messages;
}

TEST(AnthropicRequest, SystemIsTopLevelAndMaxTokensAlwaysSet) {
  std::vector<Message> messages(1);
  messages[0].content = "hi";
  const json body = build(basic_request(messages));
  EXPECT_EQ(body["system"], "You are terse.");
  EXPECT_EQ(body["max_tokens"], 1024);
  EXPECT_EQ(body["model"], "claude-sonnet-4-5");
  EXPECT_EQ(body["messages"], json::parse(R"([{"role":"user","content":"hi"}])"));
  EXPECT_EQ(body["stream"], true);
}

TEST(AnthropicRequest, SystemMessagesJoinTheTopLevelSystem) {
  std::vector<Message> messages(2);
  messages[0].role = Role::system;
  messages[0].content = "Also: be kind.";
  messages[1].content = "hi";
  const json body = build(basic_request(messages));
  EXPECT_EQ(body["system"], "You are terse.\n\nAlso: be kind.");
  EXPECT_EQ(body["messages"].size(), 1u);
}

TEST(AnthropicRequest, ToolsCarryInputSchema) {
  std::vector<Message> messages(1);
  const json body = build(basic_request(messages));
  EXPECT_EQ(body["tools"][0]["name"], "get_weather");
  EXPECT_EQ(body["tools"][0]["input_schema"]["type"], "object");
  EXPECT_FALSE(body["tools"][0].contains("parameters"));
}

TEST(AnthropicRequest, EchoesSignedThinkingFirstThenTextAndToolUse) {
  const auto messages = tool_round();
  const json body = build(basic_request(messages));
  const json expected = json::parse(R"({"role": "assistant", "content": [
    {"type": "thinking", "thinking": "User wants weather.", "signature": "EqQBfakeSig=="},
    {"type": "redacted_thinking", "data": "EmwKAhgB"},
    {"type": "text", "text": "Let me look that up."},
    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo", "unit": "c"}},
    {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {}}
  ]})");
  EXPECT_EQ(body["messages"][1], expected);
}

TEST(AnthropicRequest, ToolResultsComeFirstInOneUserTurn) {
  const auto messages = tool_round();
  const json body = build(basic_request(messages));
  ASSERT_EQ(body["messages"].size(), 3u);
  const json expected = json::parse(R"({"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "-3 C, snow"},
    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "invalid arguments", "is_error": true},
    {"type": "text", "text": "Please be brief."}
  ]})");
  EXPECT_EQ(body["messages"][2], expected);
}

TEST(AnthropicRequest, UserTextBeforeResultsStillGoesAfterThem) {
  std::vector<Message> messages(4);
  messages[0].content = "go";
  messages[1].role = Role::assistant;
  messages[1].tool_calls = {{"toolu_1", "list_dir", "{}"}};
  messages[2].content = "(a note)";
  messages[3].role = Role::tool;
  messages[3].tool_call_id = "toolu_1";
  messages[3].content = "a.txt";
  const json body = build(basic_request(messages));
  ASSERT_EQ(body["messages"].size(), 3u);
  EXPECT_EQ(body["messages"][2]["content"][0]["type"], "tool_result");
  EXPECT_EQ(body["messages"][2]["content"][1]["text"], "(a note)");
}

TEST(AnthropicRequest, EmptyAssistantTurnIsLeftOut) {
  std::vector<Message> messages(3);
  messages[0].content = "one";
  messages[1].role = Role::assistant;
  messages[2].content = "two";
  const json body = build(basic_request(messages));
  ASSERT_EQ(body["messages"].size(), 1u);
  EXPECT_EQ(body["messages"][0]["content"][0]["text"], "one");
  EXPECT_EQ(body["messages"][0]["content"][1]["text"], "two");
}

TEST(AnthropicRequest, StructuredOutputUsesOutputConfig) {
  std::vector<Message> messages(1);
  ChatRequest request = basic_request(messages);
  request.json_schema = R"({"type":"object"})";
  request.stream = false;
  const json body = build(request);
  EXPECT_EQ(body["output_config"]["format"]["type"], "json_schema");
  EXPECT_EQ(body["output_config"]["format"]["schema"]["type"], "object");
  EXPECT_EQ(body["stream"], false);
}

} // namespace
} // namespace ralph::llm
