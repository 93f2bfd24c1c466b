#include "http/sse_fixtures.h"
#include "llm/anthropic_stream.h"
#include "llm_test_support.h"
#include "stream_fixtures.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace ralph::llm {
namespace {

using ::testing::HasSubstr;
using namespace ralph::llm::testing;

Result<ChatResponse> read(std::string_view stream, StreamObserver* observer = nullptr) {
  AnthropicStreamReader reader("", observer);
  return read_chunks(reader, whole(stream));
}

TEST(AnthropicStream, ReassemblesTheDocumentedExample) {
  RecordingObserver observer;
  auto response = read(ralph::testing::k_anthropic_stream, &observer);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "Let me look that up.");
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].id, "toolu_01XyZ");
  EXPECT_EQ(response->message.tool_calls[0].name, "get_weather");
  EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"city": "Oslo", "unit": "c"})");
  EXPECT_EQ(response->stop_reason, StopReason::tool_use);
  EXPECT_EQ(response->usage.input_tokens, 412);
  EXPECT_EQ(response->usage.output_tokens, 58) << "message_delta usage replaces, never adds";
  EXPECT_EQ(response->model, "claude-sonnet-4-5");
  EXPECT_EQ(observer.text, "Let me look that up.");
  ASSERT_EQ(observer.tool_calls.size(), 1u);
  EXPECT_EQ(observer.tool_calls[0].name, "get_weather");
}

TEST(AnthropicStream, SameResultWhateverTheSplits) {
  for (std::string_view stream : {ralph::testing::k_anthropic_stream, k_anthropic_thinking_stream,
                                  k_anthropic_odd_tools, k_anthropic_overloaded}) {
    const std::string expected = summary(read(stream));
    AnthropicStreamReader reader("", nullptr);
    EXPECT_EQ(summary(read_chunks(reader, bytewise(stream))), expected);
    for (unsigned seed = 1; seed <= 20; ++seed) {
      EXPECT_EQ(summary(read_chunks(reader, random_splits(stream, seed))), expected) << seed;
    }
  }
}

TEST(AnthropicStream, UsageNearTheInt64LimitSaturatesInsteadOfOverflowing) {
  std::string stream(ralph::testing::k_anthropic_stream);
  const auto replace = [&](std::string_view from, std::string_view to) {
    stream.replace(stream.find(from), from.size(), to);
  };
  replace(R"("input_tokens":412,"cache_creation_input_tokens":0,"cache_read_input_tokens":0)",
          R"("input_tokens":9223372036854775807,"cache_creation_input_tokens":5,)"
          R"("cache_read_input_tokens":9223372036854775000)");
  const auto response = read(stream);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->usage.input_tokens, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(response->usage.cache_write_tokens, 5);
}

TEST(AnthropicStream, ANumberTooLargeForADoubleIsAMalformedResponse) {
  std::string stream(ralph::testing::k_anthropic_stream);
  const std::string_view from = R"("output_tokens":2)";
  stream.replace(stream.find(from), from.size(), R"("output_tokens":1e999)");
  Result<ChatResponse> response;
  EXPECT_NO_THROW(response = read(stream));
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::parse);
  EXPECT_THAT(response.error().message, HasSubstr("number out of range"));
}

TEST(AnthropicStream, KeepsThinkingWithSignatureAndSkipsPingsAndUnknownTypes) {
  RecordingObserver observer;
  auto response = read(k_anthropic_thinking_stream, &observer);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->message.thinking.size(), 1u);
  EXPECT_EQ(response->message.thinking[0].thinking, "User wants a file; write it.");
  EXPECT_EQ(response->message.thinking[0].signature, "EqQBfakeSig==");
  EXPECT_EQ(observer.thinking, "User wants a file; write it.");
  EXPECT_EQ(response->message.content, "Writing now.");
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].arguments,
            "{\"path\": \"a.txt\", \"content\": \"caf\xC3\xA9 \\\"x\\\"\"}");
}

TEST(AnthropicStream, PromptSizeSumsTheCacheFields) {
  auto response = read(k_anthropic_thinking_stream);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->usage.input_tokens, 10 + 100 + 1000);
  EXPECT_EQ(response->usage.cache_read_tokens, 1000);
  EXPECT_EQ(response->usage.cache_write_tokens, 100);
  EXPECT_EQ(response->usage.output_tokens, 58);
}

TEST(AnthropicStream, EmptyInputIsAnEmptyObjectAndInvalidInputStaysRaw) {
  auto response = read(k_anthropic_odd_tools);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.tool_calls[0].arguments, "{}");
  EXPECT_EQ(response->message.tool_calls[1].arguments, "{\"command\": \"ls");
  ASSERT_EQ(response->message.thinking.size(), 1u);
  EXPECT_TRUE(response->message.thinking[0].redacted);
  EXPECT_EQ(response->message.thinking[0].redacted_data, "EmwKAhgBEgy3va==");
  EXPECT_EQ(response->stop_reason, StopReason::max_tokens);
  EXPECT_EQ(response->usage.input_tokens, 6) << "a later usage update replaces input tokens";
}

TEST(AnthropicStream, BlocksAreOrderedByIndexNotArrival) {
  const std::string stream =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{}}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
      "\"delta\":{\"type\":\"text_delta\",\"text\":\"second\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"text_delta\",\"text\":\"first \"}}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
      "\"end_turn\"}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  auto response = read(stream);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "first second");
  EXPECT_EQ(response->stop_reason, StopReason::end_turn);
}

TEST(AnthropicStream, OverloadedErrorEventIsRetryable) {
  RecordingObserver observer;
  auto response = read(k_anthropic_overloaded, &observer);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::provider);
  EXPECT_TRUE(response.error().retryable);
  EXPECT_EQ(response.error().message, "anthropic: error in response overloaded_error: Overloaded");
  EXPECT_EQ(observer.text, "Partial");
}

TEST(AnthropicStream, ErrorEventFollowedByMessageStopIsStillAnError) {
  std::string stream(k_anthropic_overloaded);
  stream += "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  auto response = read(stream);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().message, "anthropic: error in response overloaded_error: Overloaded");
}

TEST(AnthropicStream, InvalidRequestErrorEventIsNotRetryable) {
  auto response = read("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":"
                       "\"invalid_request_error\",\"message\":\"bad\"}}\n\n");
  ASSERT_FALSE(response);
  EXPECT_FALSE(response.error().retryable);
}

TEST(AnthropicStream, StreamWithoutMessageStopIsTruncated) {
  const std::string_view stream = ralph::testing::k_anthropic_stream;
  auto response = read(stream.substr(0, stream.find("event: message_stop")));
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::network);
  EXPECT_TRUE(response.error().retryable);
  EXPECT_THAT(response.error().message, HasSubstr("message_stop"));
}

TEST(AnthropicStream, MalformedEventIsAParseError) {
  auto response = read("event: message_start\ndata: {\"type\":\"message_start\"\n\n");
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::parse);
}

TEST(AnthropicStream, MapsEveryStopReason) {
  EXPECT_EQ(anthropic_stop_reason("end_turn"), StopReason::end_turn);
  EXPECT_EQ(anthropic_stop_reason("tool_use"), StopReason::tool_use);
  EXPECT_EQ(anthropic_stop_reason("max_tokens"), StopReason::max_tokens);
  EXPECT_EQ(anthropic_stop_reason("model_context_window_exceeded"), StopReason::max_tokens);
  EXPECT_EQ(anthropic_stop_reason("stop_sequence"), StopReason::stop_sequence);
  EXPECT_EQ(anthropic_stop_reason("pause_turn"), StopReason::pause_turn);
  EXPECT_EQ(anthropic_stop_reason("refusal"), StopReason::refusal);
  EXPECT_EQ(anthropic_stop_reason("something_new"), StopReason::unknown);
}

} // namespace
} // namespace ralph::llm
