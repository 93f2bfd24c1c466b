#include "fake_server_fixture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::llm {
namespace {

using namespace ralph::llm::testing;
using nlohmann::json;

FakeTurn thinking_tool_turn() {
  FakeTurn turn;
  turn.thinking = "I should write the file, then check it.";
  turn.text = "Writing a.txt — naïve café.";
  turn.tool_calls = {
      {.name = "write_file", .arguments = R"({"path":"a.txt","content":"hello there, world"})"},
      {.name = "shell", .arguments = R"({"command":"cat a.txt"})"}};
  return turn;
}

class AnthropicProviderTest : public FakeServerTest {};

TEST_F(AnthropicProviderTest, StreamsThinkingTextAndToolUse) {
  server.set_chunk_size(5);
  server.push(thinking_tool_turn());
  auto response = anthropic()->chat(request(), &observer, cancel);

  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "Writing a.txt — naïve café.");
  ASSERT_EQ(response->message.thinking.size(), 1u);
  EXPECT_EQ(response->message.thinking[0].thinking, "I should write the file, then check it.");
  EXPECT_FALSE(response->message.thinking[0].signature.empty());
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.tool_calls[0].id, "toolu_fake_1");
  EXPECT_EQ(response->message.tool_calls[0].arguments,
            R"({"path":"a.txt","content":"hello there, world"})");
  EXPECT_EQ(response->message.tool_calls[1].name, "shell");
  EXPECT_EQ(response->stop_reason, StopReason::tool_use);
  EXPECT_GT(response->usage.input_tokens, 0);
  EXPECT_GT(response->usage.output_tokens, 1);
  EXPECT_EQ(response->request_id, "req_fake_1");
  EXPECT_EQ(observer.thinking, response->message.thinking[0].thinking);
  EXPECT_EQ(observer.text, response->message.content);
  EXPECT_EQ(observer.tool_calls.size(), 2u);

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/messages");
  EXPECT_EQ(requests[0].headers.at("x-api-key"), k_key);
  EXPECT_EQ(requests[0].headers.at("anthropic-version"), "2023-06-01");
  EXPECT_EQ(requests[0].headers.count("authorization"), 0u);
  const json body = json::parse(requests[0].body);
  EXPECT_EQ(body["system"], "You are a test.");
  EXPECT_EQ(body["max_tokens"], 4096);
  EXPECT_EQ(body["tools"][0]["input_schema"]["type"], "object");
}

TEST_F(AnthropicProviderTest, NonStreamingAnswerHasTheSameShape) {
  server.push(thinking_tool_turn());
  auto response = anthropic()->chat(request(false), &observer, cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "Writing a.txt — naïve café.");
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(json::parse(response->message.tool_calls[0].arguments),
            json::parse(R"({"path":"a.txt","content":"hello there, world"})"));
  EXPECT_FALSE(response->message.thinking.at(0).signature.empty());
  EXPECT_EQ(observer.thinking, "I should write the file, then check it.");
  EXPECT_EQ(json::parse(server.requests().at(0).body)["stream"], false);
}

// A whole response holds each tool input inside its own JSON: the input is kept as the text the
// model sent, as a streamed one is, so what no parse holds is the tool's to refuse, not a
// malformed response; the rest of the body (strings with brackets and escapes, the server's own
// blocks) reads as before.
TEST_F(AnthropicProviderTest, NonStreamingToolInputIsKeptAsTheTextTheModelSent) {
  const std::string deep =
      R"({"path":)" + std::string(100'000, '[') + std::string(100'000, ']') + "}";
  const std::string huge = R"({"path": "a.txt", "n": 1e999})";
  FakeTurn whole;
  whole.fault = Fault::custom_error; // a 200 with this body verbatim
  whole.status = 200;
  whole.error_body =
      R"({"type":"message","model":"m","content":[{"type":"text","text":"a \"q\" {[ \\ x"},)"
      R"({"type":"server_tool_use","id":"s","name":"web_search","input":{"query":"x"}},)"
      R"({"type":"tool_use","id":"t1","name":"write_file","input":)" +
      deep + R"(},{"type":"tool_use","id":"t2","name":"shell","input": )" + huge +
      R"( },{"type":"tool_use","id":"t3","name":"list_dir"}],"stop_reason":"tool_use",)"
      R"("usage":{"input_tokens":3,"output_tokens":4}})";
  server.push(whole);

  auto response = anthropic()->chat(request(false), &observer, cancel);

  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, R"(a "q" {[ \ x)");
  ASSERT_EQ(response->message.tool_calls.size(), 3u);
  EXPECT_EQ(response->message.tool_calls[0].arguments, deep);
  EXPECT_EQ(response->message.tool_calls[1].arguments, huge);
  EXPECT_EQ(response->message.tool_calls[2].arguments, "{}") << "no input";
  EXPECT_EQ(response->usage.output_tokens, 4);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(AnthropicProviderTest, EchoesThinkingAndSendsResultsFirst) {
  server.push(thinking_tool_turn());
  server.push(text_turn("Done."));
  auto provider = anthropic();
  auto first = provider->chat(request(), nullptr, cancel);
  ASSERT_TRUE(first) << first.error().message;
  messages.push_back(first->message);
  for (const ToolCall& call : first->message.tool_calls) {
    Message result;
    result.role = Role::tool;
    result.tool_call_id = call.id;
    result.content = call.name == "shell" ? "exit code: 1" : "ok";
    result.is_error = call.name == "shell";
    messages.push_back(result);
  }
  auto second = provider->chat(request(), nullptr, cancel);
  ASSERT_TRUE(second) << second.error().message;

  const json sent = json::parse(server.requests().at(1).body)["messages"];
  ASSERT_EQ(sent.size(), 3u);
  const json& assistant = sent[1]["content"];
  EXPECT_EQ(assistant[0]["type"], "thinking");
  EXPECT_EQ(assistant[0]["thinking"], first->message.thinking[0].thinking);
  EXPECT_EQ(assistant[0]["signature"], first->message.thinking[0].signature);
  EXPECT_EQ(assistant[1]["type"], "text");
  EXPECT_EQ(assistant[2]["type"], "tool_use");
  EXPECT_EQ(assistant[2]["input"]["path"], "a.txt");
  const json& results = sent[2]["content"];
  EXPECT_EQ(sent[2]["role"], "user");
  EXPECT_EQ(results[0]["type"], "tool_result");
  EXPECT_EQ(results[0]["tool_use_id"], "toolu_fake_1");
  EXPECT_FALSE(results[0].contains("is_error"));
  EXPECT_EQ(results[1]["tool_use_id"], "toolu_fake_2");
  EXPECT_EQ(results[1]["is_error"], true);
}

TEST_F(AnthropicProviderTest, BaseUrlMayAlreadyNameTheVersion) {
  server.push(text_turn("hi"));
  AnthropicProvider provider(config("anthropic", server.base_url() + "/v1"), transport, clock);
  auto response = provider.chat(request(), nullptr, cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(server.requests().at(0).path, "/v1/messages");
}

TEST_F(AnthropicProviderTest, RefusalStopReason) {
  FakeTurn turn = text_turn("I can't help with that.");
  turn.stop_reason = "refusal";
  server.push(turn);
  auto response = anthropic()->chat(request(), nullptr, cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->stop_reason, StopReason::refusal);
  EXPECT_EQ(response->raw_stop_reason, "refusal");
}

} // namespace
} // namespace ralph::llm
