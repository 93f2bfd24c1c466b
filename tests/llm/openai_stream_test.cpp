#include "http/sse_fixtures.h"
#include "llm/openai_response.h"
#include "llm/openai_stream.h"
#include "llm_test_support.h"
#include "stream_fixtures.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::llm {
namespace {

using ::testing::HasSubstr;
using namespace ralph::llm::testing;

Result<ChatResponse> read(std::string_view stream, StreamObserver* observer = nullptr) {
  OpenAiStreamReader reader("openai", "", observer);
  return read_chunks(reader, whole(stream));
}

// Whole, byte by byte and at random splits, the result is the same.
void expect_split_invariant(std::string_view stream) {
  const std::string expected = summary(read(stream));
  OpenAiStreamReader reader("openai", "", nullptr);
  EXPECT_EQ(summary(read_chunks(reader, bytewise(stream))), expected);
  for (unsigned seed = 1; seed <= 20; ++seed) {
    EXPECT_EQ(summary(read_chunks(reader, random_splits(stream, seed))), expected) << seed;
  }
}

TEST(OpenAiStream, ReassemblesTheDocumentedExample) {
  RecordingObserver observer;
  auto response = read(ralph::testing::k_openai_stream, &observer);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "Checking both cities.");
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.tool_calls[0].id, "call_Q1");
  EXPECT_EQ(response->message.tool_calls[0].name, "get_weather");
  EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"city":"Oslo"})");
  EXPECT_EQ(response->message.tool_calls[1].id, "call_Q2");
  EXPECT_EQ(response->message.tool_calls[1].arguments, R"({"city":"Lima"})");
  EXPECT_EQ(response->stop_reason, StopReason::tool_use);
  EXPECT_EQ(response->raw_stop_reason, "tool_calls");
  EXPECT_EQ(response->usage.input_tokens, 88);
  EXPECT_EQ(response->usage.output_tokens, 41);
  EXPECT_EQ(response->model, "gpt-4.1");
  EXPECT_EQ(observer.text, "Checking both cities.");
  EXPECT_EQ(observer.text_deltas, 2);
  ASSERT_EQ(observer.tool_calls.size(), 2u);
  EXPECT_EQ(observer.tool_calls[1].name, "get_weather");
}

TEST(OpenAiStream, SameResultWhateverTheSplits) {
  for (std::string_view stream :
       {ralph::testing::k_openai_stream, k_openai_interleaved, k_ollama_reused_index,
        k_llama_cpp_stream, k_openai_mid_stream_error, k_llama_error_field,
        k_openai_unknown_finish_without_done}) {
    expect_split_invariant(stream);
  }
}

TEST(OpenAiStream, AssemblesInterleavedFragmentsByIndex) {
  auto response = read(k_openai_interleaved);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "");
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.tool_calls[0].id, "call_A");
  EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"path":"a.txt"})");
  EXPECT_EQ(response->message.tool_calls[1].id, "call_B");
  EXPECT_EQ(response->message.tool_calls[1].name, "write_file");
  EXPECT_EQ(response->message.tool_calls[1].arguments, "{\"path\":\"caf\xC3\xA9 \\\"q\\\"\"}");
  EXPECT_EQ(response->usage.input_tokens, 0) << "no usage was sent";
}

TEST(OpenAiStream, NewIdAtAReusedIndexIsANewCall) {
  RecordingObserver observer;
  auto response = read(k_ollama_reused_index, &observer);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.tool_calls[0].id, "call_k1");
  EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"city":"Oslo"})");
  EXPECT_EQ(response->message.tool_calls[1].id, "call_k2");
  EXPECT_EQ(response->message.tool_calls[1].arguments, R"({"city":"Lima"})");
  ASSERT_EQ(response->message.thinking.size(), 1u);
  EXPECT_EQ(response->message.thinking[0].thinking, "Two cities.");
  EXPECT_EQ(observer.thinking, "Two cities.");
  EXPECT_EQ(observer.tool_calls.size(), 2u);
}

TEST(OpenAiStream, ReadsLlamaCppUsageOnTheFinishChunkAndReasoningContent) {
  RecordingObserver observer;
  auto response = read(k_llama_cpp_stream, &observer);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "Caf\xC3\xA9 ok");
  EXPECT_EQ(observer.thinking, "Think \xF0\x9F\xA4\x94");
  EXPECT_EQ(response->stop_reason, StopReason::end_turn);
  EXPECT_EQ(response->usage.input_tokens, 30);
  EXPECT_EQ(response->usage.output_tokens, 7);
  EXPECT_EQ(response->usage.cache_read_tokens, 12);
}

TEST(OpenAiStream, ErrorPayloadAfterContentIsARetryableProviderError) {
  RecordingObserver observer;
  auto response = read(k_openai_mid_stream_error, &observer);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::provider);
  EXPECT_TRUE(response.error().retryable);
  EXPECT_THAT(response.error().message, HasSubstr("server_error: "));
  EXPECT_THAT(response.error().message, HasSubstr("The server had an error"));
  EXPECT_EQ(observer.text, "Half an ans");
}

TEST(OpenAiStream, OldLlamaCppErrorFieldIsAnError) {
  auto response = read(k_llama_error_field);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::provider);
  EXPECT_FALSE(response.error().retryable);
  EXPECT_THAT(response.error().message, HasSubstr("exceed_context_size_error: "));
  EXPECT_THAT(response.error().message, HasSubstr("exceeds the available context size"));
}

TEST(OpenAiStream, UnknownFinishReasonKeepsTheRawValue) {
  auto response = read(k_openai_unknown_finish_without_done);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->stop_reason, StopReason::unknown);
  EXPECT_EQ(response->raw_stop_reason, "insufficient_system_resource");
  EXPECT_EQ(response->message.content, "Busy");
}

TEST(OpenAiStream, MapsEveryFinishReason) {
  EXPECT_EQ(openai_stop_reason("stop"), StopReason::end_turn);
  EXPECT_EQ(openai_stop_reason("length"), StopReason::max_tokens);
  EXPECT_EQ(openai_stop_reason("tool_calls"), StopReason::tool_use);
  EXPECT_EQ(openai_stop_reason("function_call"), StopReason::tool_use);
  EXPECT_EQ(openai_stop_reason("content_filter"), StopReason::content_filter);
  EXPECT_EQ(openai_stop_reason(""), StopReason::unknown);
}

TEST(OpenAiStream, StreamCutBeforeTheFinishIsATruncationError) {
  const std::string_view stream = ralph::testing::k_openai_stream;
  auto response = read(stream.substr(0, stream.find("\"finish_reason\":\"tool_calls\"") - 60));
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::network);
  EXPECT_TRUE(response.error().retryable);
  EXPECT_THAT(response.error().message, HasSubstr("truncated"));
}

TEST(OpenAiStream, UnterminatedLastEventIsATruncation) {
  const std::string stream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},"
                             "\"finish_reason\":\"stop\"}]}\n\ndata: {\"choices\":[]";
  auto response = read(stream);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::network);
}

TEST(OpenAiStream, DoneIsCheckedBeforeJsonAndEndsTheStream) {
  const std::string stream =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":null}]}\n\n"
      "data: [DONE]\n\n"
      "data: not json after the end\n\n";
  auto response = read(stream);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "x");
  EXPECT_EQ(response->stop_reason, StopReason::unknown);
}

TEST(OpenAiStream, KeepAlivesNeverReachTheJsonParser) {
  const std::string stream =
      ": OPENROUTER PROCESSING\n\n:\n\n: ping\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":null}]}\n\n"
      "data:\n\ndata: : ping\n\n: keepalive\n\n"
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":null}\n\n"
      "data: [DONE]\n\n";
  auto response = read(stream);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "x");
  EXPECT_EQ(response->stop_reason, StopReason::end_turn);
}

TEST(OpenAiStream, MalformedChunkIsAParseErrorNotAnEmptyAnswer) {
  const std::string stream =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}\n\ndata: [DONE]\n\n";
  auto response = read(stream);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::parse);
  EXPECT_FALSE(response.error().retryable);
  EXPECT_THAT(response.error().message, HasSubstr("stream chunk"));
}

TEST(OpenAiStream, ANumberTooLargeForADoubleIsAMalformedResponse) {
  // In a field the reader reads (usage) and in one it skips (created): neither escapes as an
  // exception through the transfer callback, and neither is read as some other number.
  for (const char* chunk :
       {R"({"choices":[],"usage":{"prompt_tokens":1e999,"completion_tokens":1}})",
        R"({"created":-1e999,"choices":[{"index":0,"delta":{"content":"x"}}]})"}) {
    const std::string stream =
        fmt::format("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"x\"}},"
                    "\"finish_reason\":\"stop\"}}]}}\n\ndata: {}\n\ndata: [DONE]\n\n",
                    chunk);
    Result<ChatResponse> response;
    EXPECT_NO_THROW(response = read(stream));
    ASSERT_FALSE(response) << chunk;
    EXPECT_EQ(response.error().kind, ErrorKind::parse);
    EXPECT_THAT(response.error().message, HasSubstr("number out of range")) << chunk;
    expect_split_invariant(stream);
  }
}

TEST(OpenAiStream, InvalidFinalArgumentsAreKeptRawForTheTool) {
  const std::string stream =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\","
      "\"function\":{\"name\":\"shell\",\"arguments\":\"{\\\"command\\\": \\\"ls\"}}]},"
      "\"finish_reason\":null}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n"
      "data: [DONE]\n\n";
  auto response = read(stream);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].arguments, "{\"command\": \"ls");
  EXPECT_EQ(response->stop_reason, StopReason::max_tokens);
}

TEST(OpenAiStream, CallsWithoutIdOrArgumentsGetThemFilledIn) {
  const std::string stream =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
      "\"function\":{\"name\":\"list_dir\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
      "data: [DONE]\n\n";
  auto response = read(stream);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].id, "call_1");
  EXPECT_EQ(response->message.tool_calls[0].arguments, "{}");
}

TEST(OpenAiStream, BeginStartsAFreshTry) {
  OpenAiStreamReader reader("openai", "", nullptr);
  reader.begin();
  reader.feed("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"stale\"}}]}\n\n");
  auto response = read_chunks(reader, whole(ralph::testing::k_openai_stream));
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "Checking both cities.");
}

} // namespace
} // namespace ralph::llm
