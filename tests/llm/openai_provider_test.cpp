#include "fake_server_fixture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::llm {
namespace {

using namespace ralph::llm::testing;
using nlohmann::json;
using ralph::testing::OpenAiFlavor;

FakeTurn tool_turn() {
  FakeTurn turn;
  turn.text = "Writing both files now. Ünïcödé ✓";
  turn.tool_calls = {{.name = "write_file",
                      .arguments = R"({"path":"a.txt","content":"first file, long enough"})"},
                     {"call_given", "write_file", R"({"path":"b.txt","content":"second"})"}};
  return turn;
}

class OpenAiProviderTest : public FakeServerTest {};

TEST_F(OpenAiProviderTest, StreamsTextAndParallelToolCallsInPieces) {
  server.set_chunk_size(7);
  server.push(tool_turn());
  auto provider = openai();
  auto response = provider->chat(request(), &observer, cancel);

  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "Writing both files now. Ünïcödé ✓");
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.tool_calls[0].id, "call_fake_1");
  EXPECT_EQ(response->message.tool_calls[0].arguments,
            R"({"path":"a.txt","content":"first file, long enough"})");
  EXPECT_EQ(response->message.tool_calls[1].id, "call_given");
  EXPECT_EQ(response->stop_reason, StopReason::tool_use);
  EXPECT_GT(response->usage.input_tokens, 0);
  EXPECT_GT(response->usage.output_tokens, 0);
  EXPECT_EQ(response->request_id, "req_fake_1");
  EXPECT_EQ(response->model, "test-model");
  EXPECT_EQ(observer.text, response->message.content);
  EXPECT_GT(observer.text_deltas, 1);
  EXPECT_EQ(observer.tool_calls.size(), 2u);

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].headers.at("authorization"), std::string("Bearer ") + k_key);
  EXPECT_EQ(requests[0].headers.at("content-type"), "application/json");
  const json body = json::parse(requests[0].body);
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
  EXPECT_EQ(body["max_tokens"], 4096);
  EXPECT_EQ(body["messages"][0]["role"], "system");
}

TEST_F(OpenAiProviderTest, NonStreamingAnswerHasTheSameShape) {
  FakeTurn turn = tool_turn();
  turn.thinking = "Two files.";
  server.push(turn);
  auto provider = openai(OpenAiDialect::openai());
  auto response = provider->chat(request(false), &observer, cancel);

  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "Writing both files now. Ünïcödé ✓");
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.tool_calls[1].arguments, R"({"path":"b.txt","content":"second"})");
  ASSERT_EQ(response->message.thinking.size(), 1u);
  EXPECT_EQ(response->message.thinking[0].thinking, "Two files.");
  EXPECT_EQ(response->stop_reason, StopReason::tool_use);
  EXPECT_GT(response->usage.input_tokens, 0);
  EXPECT_EQ(observer.text, response->message.content);
  EXPECT_EQ(observer.thinking, "Two files.");

  const json body = json::parse(server.requests().at(0).body);
  EXPECT_EQ(body["stream"], false);
  EXPECT_FALSE(body.contains("stream_options"));
  EXPECT_EQ(body["max_completion_tokens"], 4096);
  EXPECT_EQ(body["tool_choice"], "auto");
}

TEST_F(OpenAiProviderTest, ReasoningStreamsAsThinking) {
  FakeTurn turn = text_turn("Answer.");
  turn.thinking = "Let me think about this carefully.";
  server.push(turn);
  auto response = openai()->chat(request(), &observer, cancel);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->message.thinking.size(), 1u);
  EXPECT_EQ(response->message.thinking[0].thinking, "Let me think about this carefully.");
  EXPECT_EQ(observer.thinking, "Let me think about this carefully.");
  EXPECT_EQ(response->stop_reason, StopReason::end_turn);
}

TEST_F(OpenAiProviderTest, LlamaCppStreamsWithKeepAlivesAndUsageOnTheFinishChunk) {
  server.set_openai_flavor(OpenAiFlavor::llama_cpp);
  server.set_chunk_size(1);
  FakeTurn turn = tool_turn();
  turn.thinking = "reasoning_content here";
  server.push(turn);
  auto response = openai()->chat(request(), &observer, cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.thinking.at(0).thinking, "reasoning_content here");
  EXPECT_GT(response->usage.input_tokens, 0) << "usage came on the finish chunk";
}

TEST_F(OpenAiProviderTest, OllamaWholeCallsAtIndexZeroStaySeparate) {
  server.set_openai_flavor(OpenAiFlavor::ollama);
  server.push(tool_turn());
  auto provider = openai(OpenAiDialect::ollama());
  auto response = provider->chat(request(), &observer, cancel);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.tool_calls[0].arguments,
            R"({"path":"a.txt","content":"first file, long enough"})");
  EXPECT_EQ(response->message.tool_calls[1].id, "call_given");
  const json body = json::parse(server.requests().at(0).body);
  EXPECT_FALSE(body.contains("tool_choice"));
  EXPECT_EQ(body["max_tokens"], 4096);
}

TEST_F(OpenAiProviderTest, ToolResultsGoBackPairedWithTheirCalls) {
  server.push(tool_turn());
  server.push(text_turn("Both written."));
  auto provider = openai();
  auto first = provider->chat(request(), nullptr, cancel);
  ASSERT_TRUE(first) << first.error().message;
  messages.push_back(first->message);
  for (const ToolCall& call : first->message.tool_calls) {
    Message result;
    result.role = Role::tool;
    result.tool_call_id = call.id;
    result.tool_name = call.name;
    result.content = "wrote " + call.id;
    messages.push_back(result);
  }
  auto second = provider->chat(request(), nullptr, cancel);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->message.content, "Both written.");

  const json sent = json::parse(server.requests().at(1).body)["messages"];
  ASSERT_EQ(sent.size(), 5u);
  EXPECT_EQ(sent[2]["role"], "assistant");
  EXPECT_EQ(sent[2]["tool_calls"][0]["id"], "call_fake_1");
  EXPECT_EQ(sent[3]["tool_call_id"], "call_fake_1");
  EXPECT_EQ(sent[4]["tool_call_id"], "call_given");
  EXPECT_EQ(sent[4]["content"], "wrote call_given");
}

TEST_F(OpenAiProviderTest, CompatServerWithoutKeyGetsNoAuthorization) {
  server.push(text_turn("hi"));
  ProviderConfig settings = config("openai-compat", server.base_url() + "/v1/");
  settings.api_key.clear();
  OpenAiProvider provider(OpenAiDialect::compat(), settings, transport, clock);
  auto response = provider.chat(request(), nullptr, cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(server.requests().at(0).headers.count("authorization"), 0u);
  EXPECT_EQ(server.requests().at(0).path, "/v1/chat/completions");
}

TEST_F(OpenAiProviderTest, LengthStopWithPartialArguments) {
  FakeTurn turn;
  turn.tool_calls = {{.name = "write_file", .arguments = R"({"path":"a.txt","content":"cut of)"}};
  turn.stop_reason = "length";
  server.push(turn);
  auto response = openai()->chat(request(), nullptr, cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->stop_reason, StopReason::max_tokens);
  EXPECT_EQ(response->message.tool_calls.at(0).arguments, R"({"path":"a.txt","content":"cut of)");
}

} // namespace
} // namespace ralph::llm
