#include "llm/body_reader.h"
#include "llm/responses_response.h"
#include "llm/responses_stream.h"
#include "llm_test_support.h"
#include "stream_fixtures.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace ralph::llm {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace ralph::llm::testing;

Result<ChatResponse> read(std::string_view stream, StreamObserver* observer = nullptr) {
  ResponsesStreamReader reader("openai-responses", "", observer);
  return read_chunks(reader, whole(stream));
}

TEST(ResponsesStream, ReadsReasoningTextAndACall) {
  RecordingObserver observer;
  auto response = read(k_responses_stream, &observer);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "Looking up café weather ✓");
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].id, "call_9");
  EXPECT_EQ(response->message.tool_calls[0].name, "get_weather");
  EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"city":"Oslo \"N\""})");
  ASSERT_EQ(response->message.thinking.size(), 1u);
  EXPECT_EQ(response->message.thinking[0].thinking, "Check the weather.");
  EXPECT_EQ(response->stop_reason, StopReason::tool_use);
  EXPECT_EQ(response->model, "gpt-5");
  EXPECT_EQ(response->usage.input_tokens, 51);
  EXPECT_EQ(response->usage.cache_read_tokens, 32);
  EXPECT_EQ(response->usage.output_tokens, 17);
  EXPECT_EQ(observer.text, "Looking up café weather ✓");
  EXPECT_EQ(observer.text_deltas, 2);
  EXPECT_EQ(observer.thinking, "Check the weather.");
  ASSERT_EQ(observer.tool_calls.size(), 1u);
  EXPECT_EQ(observer.tool_calls[0].id, "call_9");
}

TEST(ResponsesStream, SameResultWhateverTheSplits) {
  for (std::string_view stream : {k_responses_stream, k_responses_gateway, k_responses_error}) {
    const std::string expected = summary(read(stream));
    ResponsesStreamReader reader("openai-responses", "", nullptr);
    EXPECT_EQ(summary(read_chunks(reader, bytewise(stream))), expected);
    for (unsigned seed = 1; seed <= 20; ++seed) {
      EXPECT_EQ(summary(read_chunks(reader, random_splits(stream, seed))), expected) << seed;
    }
  }
}

TEST(ResponsesStream, GatewayAliasWithEmptyOutputUsesTheDoneItems) {
  auto response = read(k_responses_gateway);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "hi");
  EXPECT_EQ(response->stop_reason, StopReason::end_turn);
  EXPECT_EQ(response->usage.input_tokens, 3);
}

TEST(ResponsesStream, ErrorEventFailsTheTryAsRetryable) {
  auto response = read(k_responses_error);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::provider);
  EXPECT_TRUE(response.error().retryable);
  EXPECT_THAT(response.error().message,
              HasSubstr("openai-responses: error in response server_error: The server had an "
                        "error"));
}

TEST(ResponsesStream, StreamWithoutATerminalEventIsTruncated) {
  std::string_view stream = k_responses_stream;
  stream = stream.substr(0, stream.find("event: response.completed"));
  auto response = read(stream);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::network);
  EXPECT_TRUE(response.error().retryable);
  EXPECT_THAT(response.error().message, HasSubstr("truncated"));
}

TEST(ResponsesStream, MalformedEventIsAParseError) {
  auto response = read("event: response.output_text.delta\ndata: {\"type\":\"response.output_"
                       "text.delta\",\"delta\":\"oops\"\n\n");
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::parse);
  EXPECT_THAT(response.error().message, HasSubstr("openai-responses: "));
}

TEST(ResponsesStream, FailedWithoutAnErrorEventIsStillAFailure) {
  auto response = read("event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":"
                       "{\"status\":\"failed\",\"error\":{\"code\":\"invalid_prompt\","
                       "\"message\":\"bad prompt\"}}}\n\n");
  ASSERT_FALSE(response);
  EXPECT_FALSE(response.error().retryable);
  EXPECT_THAT(response.error().message, HasSubstr("invalid_prompt: bad prompt"));
}

TEST(ResponsesBody, UnfinishedStatusesAreErrorsThatNeverShowTheKey) {
  http::Response response;
  response.status = 200;
  response.body = R"({"status":"cancelled","output":[]})";
  BodyReader reader(read_responses_body, "openai-responses", "sk-secret-1", nullptr);
  auto cancelled = reader.finish(response);
  ASSERT_FALSE(cancelled);
  EXPECT_EQ(cancelled.error().message, "openai-responses: response ended with status 'cancelled'");
  // Found by the responses_body fuzz target: a status echoing the key.
  response.body = R"({"status":"complsk-secret-1eted","output":[]})";
  auto odd = reader.finish(response);
  ASSERT_FALSE(odd);
  EXPECT_THAT(odd.error().message, Not(HasSubstr("sk-secret-1")));
  EXPECT_THAT(odd.error().message, HasSubstr("(not a status name)"));
}

} // namespace
} // namespace ralph::llm
