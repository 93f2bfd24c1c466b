// Every injected fault, against every wire format: what is retried (before and after streaming
// started), what is not, and what the caller gets.
#include "fake_server_fixture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace ralph::llm {
namespace {

using namespace ralph::llm::testing;
using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

enum class Api { openai, responses, anthropic };

struct FaultCase {
  Api api;
  bool stream;
};

std::string case_name(const ::testing::TestParamInfo<FaultCase>& info) {
  const char* api = info.param.api == Api::openai      ? "OpenAi"
                    : info.param.api == Api::responses ? "Responses"
                                                       : "Anthropic";
  return std::string(api) + (info.param.stream ? "Streaming" : "Whole");
}

class ProviderFaults : public FakeServerTest, public ::testing::WithParamInterface<FaultCase> {
protected:
  std::unique_ptr<Provider> provider() {
    switch (GetParam().api) {
    case Api::openai:
      return openai();
    case Api::responses:
      return responses();
    case Api::anthropic:
      break;
    }
    return anthropic();
  }
  Result<ChatResponse> chat() {
    return provider()->chat(request(GetParam().stream), &observer, cancel);
  }
  bool streaming() const { return GetParam().stream; }
};

TEST_P(ProviderFaults, RateLimitIsRetriedAfterTheServerHint) {
  FakeTurn limited = fault_turn(Fault::http_429);
  limited.retry_after_ms = 250;
  server.push(limited);
  server.push(text_turn("Fine now."));

  auto response = chat();

  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "Fine now.");
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_THAT(clock.sleeps(), ElementsAre(250ms));
  ASSERT_EQ(observer.retries.size(), 1u);
  EXPECT_EQ(observer.retries[0].http_status, 429);
  EXPECT_THAT(observer.retries[0].message, HasSubstr("HTTP 429"));
  EXPECT_THAT(observer.attempts, ElementsAre(1));
  EXPECT_THAT(observer.delays, ElementsAre(250ms));
}

TEST_P(ProviderFaults, RetryAfterSecondsHeader) {
  FakeTurn limited = fault_turn(Fault::http_429);
  limited.retry_after = "1.5";
  server.push(limited);
  server.push(text_turn("ok"));
  auto response = chat();
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_THAT(clock.sleeps(), ElementsAre(1500ms));
}

TEST_P(ProviderFaults, HintBeyondTheCapEndsRetrying) {
  FakeTurn limited = fault_turn(Fault::http_429);
  limited.retry_after = "3600";
  server.push(limited);
  auto response = chat();
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().http_status, 429);
  EXPECT_EQ(response.error().retry_after, 3600s);
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_TRUE(clock.sleeps().empty());
}

TEST_P(ProviderFaults, ServerErrorsAreRetriedWithBackoff) {
  server.push(fault_turn(Fault::http_500));
  server.push(fault_turn(Fault::http_529));
  server.push(text_turn("Third time lucky."));

  auto response = chat();

  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "Third time lucky.");
  EXPECT_EQ(server.requests().size(), 3u);
  ASSERT_EQ(clock.sleeps().size(), 2u);
  // 500 ms with jitter in (0.75, 1], rounded to the millisecond: 375 ms itself can come out.
  EXPECT_GE(clock.sleeps()[0], 375ms);
  EXPECT_LE(clock.sleeps()[0], 500ms);
  EXPECT_GE(clock.sleeps()[1], 750ms);
  EXPECT_LE(clock.sleeps()[1], 1000ms);
  ASSERT_EQ(observer.retries.size(), 2u);
  EXPECT_EQ(observer.retries[1].http_status, 529);
  EXPECT_THAT(observer.attempts, ElementsAre(1, 2));
}

TEST_P(ProviderFaults, ExhaustedRetriesReturnTheTypedError) {
  for (int i = 0; i < 3; ++i) {
    server.push(fault_turn(Fault::http_529));
  }
  auto response = chat();
  ASSERT_FALSE(response);
  const Error& error = response.error();
  EXPECT_EQ(error.kind, ErrorKind::provider);
  EXPECT_EQ(error.http_status, 529);
  EXPECT_THAT(error.message,
              HasSubstr("HTTP 529 overloaded_error: Overloaded (request req_fake_3)"));
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(observer.retries.size(), 2u);
}

TEST_P(ProviderFaults, BadKeyIsNotRetriedAndNeverShown) {
  server.push(fault_turn(Fault::http_401));
  auto response = chat();
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().http_status, 401);
  EXPECT_FALSE(response.error().retryable);
  EXPECT_EQ(server.requests().size(), 1u);
  // The fake echoes the key it received in its message; it must not come back out.
  EXPECT_THAT(response.error().message, Not(HasSubstr(k_key)));
  EXPECT_THAT(response.error().message, HasSubstr("[REDACTED]"));
}

TEST_P(ProviderFaults, ProxyHtmlPageIsRetried) {
  server.push(fault_turn(Fault::http_502_html));
  server.push(text_turn("through"));
  auto response = chat();
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(observer.retries.size(), 1u);
  EXPECT_THAT(observer.retries[0].message, HasSubstr("HTTP 502: 502 Bad Gateway"));
}

TEST_P(ProviderFaults, MalformedBodyIsRetriedLikeADroppedConnection) {
  server.push(fault_turn(Fault::malformed_json));
  server.push(text_turn("The complete answer."));

  auto response = chat();

  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "The complete answer.");
  EXPECT_EQ(server.requests().size(), 2u);
  ASSERT_EQ(observer.retries.size(), 1u);
  EXPECT_EQ(observer.retries[0].kind, ErrorKind::parse);
  EXPECT_THAT(observer.retries[0].message, HasSubstr("malformed JSON"));
  EXPECT_EQ(observer.text, "The complete answer.") << "the failed try's text was voided";
  EXPECT_EQ(clock.sleeps().size(), 1u);
}

TEST_P(ProviderFaults, MalformedBodiesUntilTheEndAreAParseErrorNotAnEmptyAnswer) {
  for (int i = 0; i < 3; ++i) {
    server.push(fault_turn(Fault::malformed_json));
  }
  auto response = chat();
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::parse);
  EXPECT_THAT(response.error().message, HasSubstr("malformed JSON"));
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(observer.retries.size(), 2u);
}

TEST_P(ProviderFaults, DroppedConnectionRestartsAndKeepsOnlyTheGoodTry) {
  server.push(fault_turn(Fault::drop_mid_stream));
  server.push(text_turn("The complete answer."));

  auto response = chat();

  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "The complete answer.");
  EXPECT_EQ(server.requests().size(), 2u);
  ASSERT_EQ(observer.retries.size(), 1u);
  EXPECT_EQ(observer.retries[0].kind, ErrorKind::network);
  EXPECT_EQ(observer.text, "The complete answer.") << "the failed try's text was voided";
  EXPECT_EQ(clock.sleeps().size(), 1u);
}

TEST_P(ProviderFaults, MidStreamErrorRestarts) {
  server.push(fault_turn(Fault::mid_stream_error));
  server.push(text_turn("Recovered."));
  auto response = chat();
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "Recovered.");
  ASSERT_EQ(observer.retries.size(), 1u);
  EXPECT_EQ(observer.retries[0].kind, ErrorKind::provider);
  EXPECT_TRUE(observer.retries[0].retryable);
}

TEST_P(ProviderFaults, MidStreamErrorsUntilTheEndAreReturned) {
  for (int i = 0; i < 3; ++i) {
    server.push(fault_turn(Fault::mid_stream_error));
  }
  auto response = chat();
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::provider);
  EXPECT_THAT(response.error().message, HasSubstr("error in response"));
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(observer.retries.size(), 2u);
}

TEST_P(ProviderFaults, SlowFirstByteIsCancelledPromptly) {
  FakeTurn slow = text_turn("too late");
  slow.fault = Fault::slow_first_byte;
  slow.first_byte_delay = std::chrono::minutes(10);
  server.push(slow);
  std::thread canceller([&] {
    server.wait_for_requests(1, std::chrono::minutes(1));
    cancel.cancel();
  });
  auto response = chat();
  canceller.join();
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::cancelled);
  EXPECT_TRUE(observer.retries.empty());
}

TEST_P(ProviderFaults, StallAfterPartOfTheStreamHitsTheIdleTimeoutAndRestarts) {
  ProviderConfig settings =
      GetParam().api == Api::openai      ? config("openai-compat", server.base_url() + "/v1")
      : GetParam().api == Api::responses ? config("openai-responses", server.base_url() + "/v1")
                                         : config("anthropic", server.base_url());
  settings.idle_timeout = 300ms;
  std::unique_ptr<Provider> impatient;
  if (GetParam().api == Api::openai) {
    impatient =
        std::make_unique<OpenAiProvider>(OpenAiDialect::compat(), settings, transport, clock);
  } else if (GetParam().api == Api::responses) {
    impatient = std::make_unique<ResponsesProvider>(settings, transport, clock);
  } else {
    impatient = std::make_unique<AnthropicProvider>(settings, transport, clock);
  }
  server.push(fault_turn(Fault::stall_mid_stream));
  server.push(text_turn("after the stall"));
  auto response = impatient->chat(request(GetParam().stream), &observer, cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.content, "after the stall");
  ASSERT_EQ(observer.retries.size(), 1u);
  EXPECT_EQ(observer.retries[0].kind, ErrorKind::timeout);
}

TEST_P(ProviderFaults, MissingTurnIsALoudError) {
  auto response = chat();
  ASSERT_FALSE(response);
  EXPECT_THAT(response.error().message, HasSubstr("no turn queued"));
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_P(ProviderFaults, CancelDuringBackoffStops) {
  // Cancels when told about the retry, i.e. just before the backoff wait.
  class Cancelling final : public StreamObserver {
  public:
    explicit Cancelling(CancelToken token) : m_token(std::move(token)) {}
    void on_retry(const Error&, int, std::chrono::milliseconds) override { m_token.cancel(); }

  private:
    CancelToken m_token;
  } cancelling(cancel);
  server.push(fault_turn(Fault::http_500));
  server.push(text_turn("never asked for"));
  auto response = provider()->chat(request(GetParam().stream), &cancelling, cancel);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::cancelled);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_P(ProviderFaults, CancelAfterADroppedStreamStopsBeforeRestarting) {
  class Cancelling final : public StreamObserver {
  public:
    explicit Cancelling(CancelToken token) : m_token(std::move(token)) {}
    void on_retry(const Error&, int, std::chrono::milliseconds) override { m_token.cancel(); }

  private:
    CancelToken m_token;
  } cancelling(cancel);
  server.push(fault_turn(Fault::drop_mid_stream));
  server.push(text_turn("never asked for"));
  auto response = provider()->chat(request(GetParam().stream), &cancelling, cancel);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::cancelled);
  EXPECT_EQ(server.requests().size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(
    EveryApi, ProviderFaults,
    ::testing::Values(FaultCase{Api::openai, true}, FaultCase{Api::openai, false},
                      FaultCase{Api::responses, true}, FaultCase{Api::responses, false},
                      FaultCase{Api::anthropic, true}, FaultCase{Api::anthropic, false}),
    case_name);

class OpenAiFaults : public FakeServerTest {};

TEST_F(OpenAiFaults, InsufficientQuotaIsNotRetried) {
  server.push(fault_turn(Fault::http_429_quota));
  auto response = openai(OpenAiDialect::openai())->chat(request(), &observer, cancel);
  ASSERT_FALSE(response);
  EXPECT_THAT(response.error().message, HasSubstr("insufficient_quota"));
  EXPECT_FALSE(response.error().retryable);
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_TRUE(observer.retries.empty());
}

TEST_F(OpenAiFaults, OldLlamaCppErrorFieldRestarts) {
  server.push(fault_turn(Fault::llama_error_field));
  server.push(text_turn("ok"));
  auto response = openai()->chat(request(), &observer, cancel);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(observer.retries.size(), 1u);
  EXPECT_THAT(observer.retries[0].message, HasSubstr("slot unavailable"));
}

TEST_F(OpenAiFaults, ShouldRetryFalseStopsA500) {
  FakeTurn turn = fault_turn(Fault::http_500);
  turn.headers["x-should-retry"] = "false";
  server.push(turn);
  auto response = openai()->chat(request(), &observer, cancel);
  ASSERT_FALSE(response);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(OpenAiFaults, CustomContextOverflowBodyIsReportedVerbatim) {
  FakeTurn turn;
  turn.fault = Fault::custom_error;
  turn.status = 400;
  turn.error_body =
      R"({"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}})";
  server.push(turn);
  auto response = openai()->chat(request(), &observer, cancel);
  ASSERT_FALSE(response);
  EXPECT_THAT(response.error().message,
              HasSubstr("HTTP 400 context_length_exceeded: This model's"));
  EXPECT_FALSE(response.error().retryable);
}

TEST_F(OpenAiFaults, ConnectionRefusedIsRetriedThenReported) {
  ProviderConfig settings = config("openai-compat", "http://127.0.0.1:1/v1");
  OpenAiProvider provider(OpenAiDialect::compat(), settings, transport, clock);
  auto response = provider.chat(request(), &observer, cancel);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::network);
  EXPECT_THAT(response.error().message, HasSubstr("openai-compat: POST http://127.0.0.1:1/v1"));
  EXPECT_EQ(observer.retries.size(), 2u);
}

} // namespace
} // namespace ralph::llm
