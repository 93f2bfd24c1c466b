#include "llm/openai_request.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace ralph::llm {
namespace {

using nlohmann::json;

// A conversation with a tool round: text + two calls, then both results.
std::vector<Message> tool_round() {
  std::vector<Message> messages(4);
  messages[0].role = Role::user;
  messages[0].content = "Weather in Oslo and Lima?";
  messages[1].role = Role::assistant;
  messages[1].content = "Checking both cities.";
  messages[1].tool_calls = {{"call_Q1", "get_weather", R"({"city":"Oslo"})"},
                            {"call_Q2", "get_weather", R"({"city":"Lima"})"}};
  messages[2].role = Role::tool;
  messages[2].tool_call_id = "call_Q1";
  messages[2].content = R"({"temp_c": -3})";
  messages[3].role = Role::tool;
  messages[3].tool_call_id = "call_Q2";
  messages[3].content = R"({"temp_c": 19})";
  return messages;
}

json build(const OpenAiDialect& dialect, const ChatRequest& request) {
  const std::string body = build_openai_body(dialect, request);
  json parsed = json::parse(body, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << body;
  return parsed;
}

ChatRequest basic_request(std::span<const Message> messages) {
  ChatRequest request;
  request.model = "gpt-4.1";
  request.system = "You are terse.";
  request.messages = messages;
  request.tools = {{"get_weather", "Current weather for one city",
                    R"({"type":"object","properties":{"city":{"type":"string"}}})"}};
  request.max_tokens = 512;
  return request;
}

TEST(OpenAiRequest, SendsToolRoundsBackExactly) {
  const auto messages = tool_round();
  const json body = build(OpenAiDialect::openai(), basic_request(messages));
  const json expected = json::parse(R"([
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather in Oslo and Lima?"},
    {"role": "assistant", "content": "Checking both cities.", "tool_calls": [
      {"id": "call_Q1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}},
      {"id": "call_Q2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Lima\"}"}}
    ]},
    {"role": "tool", "tool_call_id": "call_Q1", "content": "{\"temp_c\": -3}"},
    {"role": "tool", "tool_call_id": "call_Q2", "content": "{\"temp_c\": 19}"}
  ])");
  EXPECT_EQ(body["messages"], expected);
  EXPECT_EQ(body["model"], "gpt-4.1");
  EXPECT_EQ(body["tools"][0]["type"], "function");
  EXPECT_EQ(body["tools"][0]["function"]["name"], "get_weather");
  EXPECT_EQ(body["tools"][0]["function"]["parameters"]["properties"]["city"]["type"], "string");
  EXPECT_EQ(body["tool_choice"], "auto");
}

TEST(OpenAiRequest, AssistantContentIsNullWhenOnlyToolsWereCalled) {
  auto messages = tool_round();
  messages[1].content.clear();
  const json body = build(OpenAiDialect::openai(), basic_request(messages));
  EXPECT_TRUE(body["messages"][2]["content"].is_null());
  EXPECT_EQ(body["messages"][2]["tool_calls"].size(), 2u);
}

TEST(OpenAiRequest, StreamOptionsOnlyWhenStreaming) {
  const auto messages = tool_round();
  ChatRequest request = basic_request(messages);
  request.stream = true;
  json body = build(OpenAiDialect::openai(), request);
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
  request.stream = false;
  body = build(OpenAiDialect::openai(), request);
  EXPECT_EQ(body["stream"], false);
  EXPECT_FALSE(body.contains("stream_options"));
}

TEST(OpenAiRequest, OutputCapFieldFollowsTheDialect) {
  const auto messages = tool_round();
  const ChatRequest request = basic_request(messages);
  const json openai = build(OpenAiDialect::openai(), request);
  EXPECT_EQ(openai["max_completion_tokens"], 512);
  EXPECT_FALSE(openai.contains("max_tokens"));
  for (const auto& dialect : {OpenAiDialect::compat(), OpenAiDialect::ollama()}) {
    const json body = build(dialect, request);
    EXPECT_EQ(body["max_tokens"], 512) << dialect.name;
    EXPECT_FALSE(body.contains("max_completion_tokens")) << dialect.name;
  }
}

TEST(OpenAiRequest, OllamaGetsNoToolChoice) {
  const auto messages = tool_round();
  const json body = build(OpenAiDialect::ollama(), basic_request(messages));
  EXPECT_FALSE(body.contains("tool_choice"));
  EXPECT_EQ(body["tools"].size(), 1u);
}

TEST(OpenAiRequest, NoToolsMeansNoToolFields) {
  const auto messages = tool_round();
  ChatRequest request = basic_request(messages);
  request.tools.clear();
  const json body = build(OpenAiDialect::openai(), request);
  EXPECT_FALSE(body.contains("tools"));
  EXPECT_FALSE(body.contains("tool_choice"));
}

TEST(OpenAiRequest, StructuredOutputUsesJsonSchemaResponseFormat) {
  const auto messages = tool_round();
  ChatRequest request = basic_request(messages);
  request.json_schema = R"({"type":"object","properties":{"verdict":{"type":"string"}}})";
  request.json_schema_name = "verdict";
  request.json_schema_strict = true;
  request.temperature = 0.2;
  const json body = build(OpenAiDialect::openai(), request);
  EXPECT_EQ(body["response_format"]["type"], "json_schema");
  EXPECT_EQ(body["response_format"]["json_schema"]["name"], "verdict");
  EXPECT_EQ(body["response_format"]["json_schema"]["strict"], true);
  EXPECT_EQ(body["response_format"]["json_schema"]["schema"]["properties"]["verdict"]["type"],
            "string");
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.2);
}

TEST(OpenAiRequest, EscapesTextAndRepairsInvalidUtf8) {
  std::vector<Message> messages(1);
  messages[0].content = std::string("quote \" backslash \\ newline \n tab \t bell \x07 ") +
                        "caf\xC3\xA9 \xF0\x9F\x98\x80 bad \xFF\xC3 end";
  ChatRequest request = basic_request(messages);
  const json body = build(OpenAiDialect::openai(), request);
  EXPECT_EQ(body["messages"][1]["content"],
            "quote \" backslash \\ newline \n tab \t bell \x07 caf\xC3\xA9 \xF0\x9F\x98\x80 bad "
            "\xEF\xBF\xBD\xEF\xBF\xBD end");
}

} // namespace
} // namespace ralph::llm
