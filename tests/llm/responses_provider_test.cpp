// The Responses API provider against the fake server over real HTTP.
#include "fake_server_fixture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::llm {
namespace {

using namespace ralph::llm::testing;
using nlohmann::json;
using ::testing::HasSubstr;

FakeTurn tool_turn() {
  FakeTurn turn;
  turn.text = "Writing both files now. Ünïcödé ✓";
  turn.thinking = "Two files, one call each.";
  turn.tool_calls = {{.name = "write_file",
                      .arguments = R"({"path":"a.txt","content":"first file, long enough"})"},
                     {"call_given", "write_file", R"({"path":"b.txt","content":"second"})"}};
  return turn;
}

class ResponsesProviderTest : public FakeServerTest, public ::testing::WithParamInterface<bool> {
protected:
  bool streaming() const { return GetParam(); }
  Result<ChatResponse> chat() { return responses()->chat(request(streaming()), &observer, cancel); }
};

TEST_P(ResponsesProviderTest, TextThinkingAndToolCallsArriveWhole) {
  server.set_chunk_size(1); // streams byte by byte: cuts inside UTF-8 and between CR and LF
  server.push(tool_turn());
  auto response = chat();

  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "Writing both files now. Ünïcödé ✓");
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.tool_calls[0].id, "call_fake_1");
  EXPECT_EQ(response->message.tool_calls[0].name, "write_file");
  EXPECT_EQ(response->message.tool_calls[0].arguments,
            R"({"path":"a.txt","content":"first file, long enough"})");
  EXPECT_EQ(response->message.tool_calls[1].id, "call_given");
  ASSERT_EQ(response->message.thinking.size(), 1u);
  EXPECT_EQ(response->message.thinking[0].thinking, "Two files, one call each.");
  EXPECT_EQ(response->stop_reason, StopReason::tool_use);
  EXPECT_EQ(response->raw_stop_reason, "completed");
  EXPECT_EQ(response->model, "test-model");
  EXPECT_EQ(response->request_id, "req_fake_1");
  EXPECT_GT(response->usage.input_tokens, 0);
  EXPECT_GT(response->usage.output_tokens, 0);
  EXPECT_FALSE(response->usage.estimated);
  EXPECT_EQ(observer.text, response->message.content);
  EXPECT_EQ(observer.thinking, "Two files, one call each.");
  ASSERT_EQ(observer.tool_calls.size(), 2u);
  EXPECT_EQ(observer.tool_calls[1].id, "call_given");
  if (streaming()) {
    EXPECT_GT(observer.text_deltas, 1) << "text is forwarded as it arrives";
  }

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/responses");
  EXPECT_EQ(requests[0].headers.at("authorization"), std::string("Bearer ") + k_key);
  const json body = json::parse(requests[0].body);
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["instructions"], "You are a test.");
  EXPECT_EQ(body["input"],
            json::parse(R"([{"type":"message","role":"user","content":"Write a.txt"}])"));
  EXPECT_EQ(body["tools"][0], json::parse(R"({"type":"function","name":"write_file",
      "description":"Writes a file","parameters":{"type":"object","properties":{"path":{"type":"string"}}},
      "strict":false})"));
  EXPECT_EQ(body["tool_choice"], "auto");
  EXPECT_EQ(body["max_output_tokens"], 4096);
  EXPECT_EQ(body["store"], false);
  EXPECT_EQ(body["stream"], streaming());
  EXPECT_FALSE(body.contains("messages"));
}

TEST_P(ResponsesProviderTest, ToolResultsGoBackStatelesslyWithTheirCalls) {
  server.push(tool_turn());
  server.push(text_turn("Both written."));
  auto provider = responses();
  auto first = provider->chat(request(streaming()), nullptr, cancel);
  ASSERT_TRUE(first) << first.error().message;
  messages.push_back(first->message);
  for (const ToolCall& call : first->message.tool_calls) {
    messages.push_back(Message{.role = Role::tool,
                               .content = "wrote " + call.id,
                               .tool_call_id = call.id,
                               .tool_name = call.name});
  }
  auto second = provider->chat(request(streaming()), nullptr, cancel);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->message.content, "Both written.");
  EXPECT_EQ(second->stop_reason, StopReason::end_turn);

  const json input = json::parse(server.requests().at(1).body)["input"];
  const json expected = json::parse(R"([
    {"type":"message","role":"user","content":"Write a.txt"},
    {"type":"message","role":"assistant","content":"Writing both files now. Ünïcödé ✓"},
    {"type":"function_call","call_id":"call_fake_1","name":"write_file",
     "arguments":"{\"path\":\"a.txt\",\"content\":\"first file, long enough\"}"},
    {"type":"function_call","call_id":"call_given","name":"write_file",
     "arguments":"{\"path\":\"b.txt\",\"content\":\"second\"}"},
    {"type":"function_call_output","call_id":"call_fake_1","output":"wrote call_fake_1"},
    {"type":"function_call_output","call_id":"call_given","output":"wrote call_given"}])");
  EXPECT_EQ(input, expected);
}

TEST_P(ResponsesProviderTest, UsageCountsCachedTokensAsPartOfTheInput) {
  FakeTurn turn = text_turn("cached");
  turn.cached_tokens = 7;
  server.push(turn);
  auto response = chat();
  ASSERT_TRUE(response) << response.error().message;
  const auto sent = static_cast<std::int64_t>(server.requests().at(0).body.size());
  EXPECT_EQ(response->usage.input_tokens, sent / 4);
  EXPECT_EQ(response->usage.cache_read_tokens, 7);
  EXPECT_EQ(response->usage.output_tokens, 1);
}

TEST_P(ResponsesProviderTest, MissingUsageIsEstimated) {
  FakeTurn turn = text_turn("no usage reported");
  turn.no_usage = true;
  server.push(turn);
  auto response = chat();
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_TRUE(response->usage.estimated);
  EXPECT_GT(response->usage.input_tokens, 0);
}

TEST_P(ResponsesProviderTest, IncompleteAtTheOutputCapIsALengthStop) {
  FakeTurn turn;
  turn.text = "The answer was cut";
  turn.tool_calls = {{.name = "write_file", .arguments = R"({"path":"a.txt","content":"cut of)"}};
  turn.stop_reason = "max_output_tokens";
  server.push(turn);
  auto response = chat();
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->stop_reason, StopReason::max_tokens);
  EXPECT_EQ(response->raw_stop_reason, "max_output_tokens");
  EXPECT_EQ(response->message.content, "The answer was cut");
  EXPECT_EQ(response->message.tool_calls.at(0).arguments, R"({"path":"a.txt","content":"cut of)");
}

TEST_P(ResponsesProviderTest, ContentFilterIsReported) {
  FakeTurn turn = text_turn("partial");
  turn.stop_reason = "content_filter";
  server.push(turn);
  auto response = chat();
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->stop_reason, StopReason::content_filter);
}

TEST_P(ResponsesProviderTest, FailedResponseIsRetriedThenReported) {
  FakeTurn failed = text_turn("half an answer");
  failed.stop_reason = "failed";
  server.push(failed);
  server.push(failed);
  server.push(failed);
  auto response = chat();
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::provider);
  EXPECT_THAT(response.error().message,
              HasSubstr("openai-responses: error in response server_error: The server had an "
                        "error"));
  EXPECT_EQ(server.requests().size(), 3u) << "server_error is transient";
  EXPECT_EQ(observer.retries.size(), 2u);
}

TEST_P(ResponsesProviderTest, JsonSchemaGoesInTextFormat) {
  server.push(text_turn(R"({"ok":true})"));
  ChatRequest ask = request(streaming());
  ask.json_schema = R"({"type":"object"})";
  ask.json_schema_name = "verdict";
  ask.json_schema_strict = true;
  ask.temperature = 0.5;
  auto response = responses()->chat(ask, nullptr, cancel);
  ASSERT_TRUE(response) << response.error().message;
  const json body = json::parse(server.requests().at(0).body);
  EXPECT_EQ(body["text"], json::parse(R"({"format":{"type":"json_schema","name":"verdict",
      "schema":{"type":"object"},"strict":true}})"));
  EXPECT_EQ(body["temperature"], 0.5);
}

std::string stream_name(const ::testing::TestParamInfo<bool>& param) {
  return param.param ? "Streaming" : "Whole";
}

INSTANTIATE_TEST_SUITE_P(StreamingAndWhole, ResponsesProviderTest, ::testing::Bool(), stream_name);

class ResponsesFactoryTest : public FakeServerTest {};

TEST_F(ResponsesFactoryTest, MadeFromItsModelSpecAndNeedsAKey) {
  ProviderConfig settings = config("openai-responses", server.base_url() + "/v1");
  EXPECT_EQ(settings.spec.provider, ProviderKind::openai_responses);
  EXPECT_EQ(settings.spec.label(), "openai-responses/test-model");
  EXPECT_EQ(model_family(settings.spec), "openai");
  auto made = make_provider(settings, transport, clock);
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_EQ((*made)->name(), "openai-responses");
  server.push(text_turn("made"));
  auto response = (*made)->chat(request(), nullptr, cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "made");

  settings.api_key.clear();
  auto keyless = make_provider(settings, transport, clock);
  ASSERT_FALSE(keyless);
  EXPECT_EQ(keyless.error().kind, ErrorKind::config);
  EXPECT_THAT(keyless.error().message, HasSubstr("OPENAI_API_KEY"));
}

} // namespace
} // namespace ralph::llm
