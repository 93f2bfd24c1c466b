#include "support/fake_clock.h"

#include "ralph/http/retry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

namespace ralph::http {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Plays back a script of results, one per send; optional bytes go to the sink first.
class ScriptedTransport final : public Transport {
public:
  void respond(int status, Headers headers = {}, std::string body = {}) {
    Response response;
    response.status = status;
    response.headers = std::move(headers);
    response.body = std::move(body);
    m_script.push_back({.result = response});
  }
  void error(ErrorKind kind, bool retryable, std::string streamed = {}) {
    Error e;
    e.kind = kind;
    e.retryable = retryable;
    e.message = "scripted";
    m_script.push_back({tl::unexpected<Error>(e), std::move(streamed)});
  }

  Result<Response> send(const Request&, const BodySink& sink, const CancelToken&) override {
    ++m_calls;
    if (m_script.empty()) {
      ADD_FAILURE() << "unexpected extra request";
      return fail(ErrorKind::internal, "script exhausted");
    }
    Step step = std::move(m_script.front());
    m_script.pop_front();
    if (!step.streamed.empty() && sink) {
      sink(step.streamed);
    }
    return step.result;
  }

  int calls() const { return m_calls; }

private:
  struct Step {
    Result<Response> result;
    std::string streamed;
  };
  std::deque<Step> m_script;
  int m_calls = 0;
};

class RetryTest : public ::testing::Test {
protected:
  Result<Response> send(const RetryHooks& hooks = {}, const BodySink& sink = {}) {
    return send_with_retry(m_transport, m_request, sink, m_cancel, m_policy, m_clock, hooks);
  }

  ScriptedTransport m_transport;
  Request m_request;
  CancelToken m_cancel;
  RetryPolicy m_policy;
  ralph::testing::FakeClock m_clock;
};

TEST(RetryStatus, RetryableStatusesMatchTheSdks) {
  for (int status : {408, 409, 429, 500, 502, 503, 504, 529}) {
    EXPECT_TRUE(is_retryable_status(status)) << status;
  }
  for (int status : {200, 400, 401, 403, 404, 413, 422}) {
    EXPECT_FALSE(is_retryable_status(status)) << status;
  }
}

Response with_header(std::string name, std::string value) {
  Response response;
  response.status = 429;
  response.headers = {{std::move(name), std::move(value)}};
  return response;
}

TEST(RetryAfter, ParsesMillisecondsSecondsAndFractions) {
  EXPECT_EQ(retry_after(with_header("retry-after-ms", "250")), 250ms);
  EXPECT_EQ(retry_after(with_header("retry-after", "2")), 2000ms);
  EXPECT_EQ(retry_after(with_header("retry-after", "1.5")), 1500ms);
  EXPECT_EQ(retry_after(with_header("retry-after", "0")), 0ms);
  EXPECT_EQ(retry_after(Response{}), std::nullopt);
}

TEST(RetryAfter, PrefersMillisecondHeader) {
  Response response;
  response.headers = {{"retry-after", "10"}, {"retry-after-ms", "250"}};
  EXPECT_EQ(retry_after(response), 250ms);
}

TEST(RetryAfter, RejectsNegativeAndGarbage) {
  for (const char* value : {"-1", "abc", "2s", "inf", "nan", "", " ", "1.5.2"}) {
    EXPECT_EQ(retry_after(with_header("retry-after", value)), std::nullopt) << value;
    EXPECT_EQ(retry_after(with_header("retry-after-ms", value)), std::nullopt) << value;
  }
}

TEST(RetryAfter, ParsesHttpDateAgainstNow) {
  // Sun, 06 Nov 1994 08:49:37 GMT
  const auto date = std::chrono::sys_days(std::chrono::year(1994) / 11 / 6) + 8h + 49min + 37s;
  const Response response = with_header("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(retry_after(response, date - 30s), 30000ms);
  EXPECT_EQ(retry_after(response, date + 1s), std::nullopt); // already past
  EXPECT_EQ(retry_after(with_header("retry-after", "Sun, 06 Foo 1994 08:49:37 GMT"), date),
            std::nullopt);
  EXPECT_EQ(retry_after(with_header("retry-after", "Sun, 31 Feb 1994 08:49:37 GMT"), date),
            std::nullopt);
}

TEST(RetryAfter, DatesOutsideTheClocksRangeStayDefined) {
  // The system clock counts nanoseconds in 64 bits: years 1678-2261. Any four-digit year must
  // still give a defined answer (the sanitizer build checks the arithmetic).
  const auto now = std::chrono::system_clock::time_point(
      std::chrono::sys_days(std::chrono::year(2025) / 1 / 1).time_since_epoch());
  const auto far = retry_after(with_header("retry-after", "Fri, 31 Dec 9999 23:59:59 GMT"), now);
  ASSERT_TRUE(far.has_value());
  // 7975 years less a second, in milliseconds: exact, and far past any max_retry_after.
  const auto expected = std::chrono::sys_days(std::chrono::year(9999) / 12 / 31) + 23h + 59min +
                        59s - std::chrono::sys_days(std::chrono::year(2025) / 1 / 1);
  EXPECT_EQ(*far, std::chrono::duration_cast<std::chrono::milliseconds>(expected));
  for (const char* past : {"Mon, 01 Jan 0001 00:00:00 GMT", "Fri, 01 Jan 1600 00:00:00 GMT"}) {
    EXPECT_EQ(retry_after(with_header("retry-after", past), now), std::nullopt) << past;
  }
}

TEST_F(RetryTest, WaitsForRetryAfterSecondsThenSucceeds) {
  m_transport.respond(429, {{"retry-after", "2"}});
  m_transport.respond(200, {}, "ok");
  std::vector<std::pair<int, milliseconds>> told;
  RetryHooks hooks;
  hooks.on_retry = [&](const Error& error, int attempt, milliseconds delay) {
    EXPECT_EQ(error.http_status, 429);
    EXPECT_EQ(error.retry_after, 2000ms);
    told.emplace_back(attempt, delay);
  };
  auto result = send(hooks);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->body, "ok");
  EXPECT_THAT(m_clock.sleeps(), ElementsAre(2000ms));
  EXPECT_THAT(told, ElementsAre(std::pair{1, 2000ms}));
}

TEST_F(RetryTest, HonoursRetryAfterMsAndFractionalSeconds) {
  m_transport.respond(429, {{"retry-after-ms", "250"}});
  m_transport.respond(503, {{"retry-after", "1.5"}});
  m_transport.respond(200);
  ASSERT_TRUE(send());
  EXPECT_THAT(m_clock.sleeps(), ElementsAre(250ms, 1500ms));
}

TEST_F(RetryTest, HintAtTheCapIsHonoured) {
  m_transport.respond(429, {{"retry-after", "60"}});
  m_transport.respond(200);
  ASSERT_TRUE(send());
  EXPECT_THAT(m_clock.sleeps(), ElementsAre(60000ms));
}

TEST_F(RetryTest, HintOverTheCapStopsRetrying) {
  m_transport.respond(429, {{"retry-after", "60.001"}}, "slow down");
  auto result = send();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 429);
  EXPECT_EQ(result->body, "slow down");
  EXPECT_EQ(m_transport.calls(), 1);
  EXPECT_THAT(m_clock.sleeps(), IsEmpty());
}

TEST_F(RetryTest, ZeroOrMissingHintFallsBackToBackoff) {
  m_transport.respond(429, {{"retry-after", "0"}});
  m_transport.respond(429, {{"retry-after", "soon"}});
  m_transport.respond(200);
  ASSERT_TRUE(send());
  ASSERT_EQ(m_clock.sleeps().size(), 2U);
  // Jitter scales by (0.75, 1]; rounded to whole milliseconds the low end can be reached.
  EXPECT_GE(m_clock.sleeps()[0], 375ms);
  EXPECT_LE(m_clock.sleeps()[0], 500ms);
  EXPECT_GE(m_clock.sleeps()[1], 750ms);
  EXPECT_LE(m_clock.sleeps()[1], 1000ms);
}

class ServerErrorRetry : public RetryTest, public ::testing::WithParamInterface<int> {};

TEST_P(ServerErrorRetry, BacksOffWithJitterAndStopsAfterMaxAttempts) {
  m_policy.max_attempts = 4;
  for (int i = 0; i < 4; ++i) {
    m_transport.respond(GetParam(), {}, "busy");
  }
  auto result = send();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, GetParam());
  EXPECT_EQ(result->body, "busy");
  EXPECT_EQ(m_transport.calls(), 4);
  const auto& sleeps = m_clock.sleeps();
  ASSERT_EQ(sleeps.size(), 3U);
  const milliseconds ceilings[] = {500ms, 1000ms, 2000ms};
  for (size_t i = 0; i < sleeps.size(); ++i) {
    EXPECT_GE(sleeps[i], ceilings[i] * 3 / 4) << i; // jitter rounded to whole milliseconds
    EXPECT_LE(sleeps[i], ceilings[i]) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Statuses, ServerErrorRetry, ::testing::Values(500, 502, 503, 504, 529));

TEST_F(RetryTest, BackoffIsCappedAtMaxDelay) {
  m_policy.max_attempts = 6;
  m_policy.max_delay = 1000ms;
  for (int i = 0; i < 6; ++i) {
    m_transport.respond(500);
  }
  ASSERT_TRUE(send());
  ASSERT_EQ(m_clock.sleeps().size(), 5U);
  for (auto sleep : m_clock.sleeps()) {
    EXPECT_GE(sleep, 375ms); // the jitter factor is in (0.75, 1]; rounding can reach 0.75
    EXPECT_LE(sleep, 1000ms);
  }
  EXPECT_GE(m_clock.sleeps().back(), 750ms);
}

TEST_F(RetryTest, ClientErrorsAreNotRetried) {
  for (int status : {400, 401, 404}) {
    ScriptedTransport transport;
    transport.respond(status);
    auto result =
        send_with_retry(transport, m_request, {}, m_cancel, m_policy, m_clock, RetryHooks{});
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, status);
    EXPECT_EQ(transport.calls(), 1);
  }
  EXPECT_THAT(m_clock.sleeps(), IsEmpty());
}

TEST_F(RetryTest, ShouldRetryFalseOverridesServerError) {
  m_transport.respond(500, {{"x-should-retry", "false"}});
  auto result = send();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 500);
  EXPECT_EQ(m_transport.calls(), 1);
}

TEST_F(RetryTest, ShouldRetryTrueOverridesClientError) {
  m_transport.respond(400, {{"x-should-retry", "true"}});
  m_transport.respond(200);
  auto result = send();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(m_transport.calls(), 2);
}

TEST_F(RetryTest, VetoStopsRetryingQuotaErrors) {
  m_transport.respond(429, {}, R"({"error":{"code":"insufficient_quota"}})");
  RetryHooks hooks;
  hooks.non_retryable = [](const Response& response) {
    return response.body.find("insufficient_quota") != std::string::npos;
  };
  auto result = send(hooks);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 429);
  EXPECT_EQ(m_transport.calls(), 1);
}

TEST_F(RetryTest, RetriesRetryableTransportErrors) {
  m_transport.error(ErrorKind::network, true);
  m_transport.error(ErrorKind::timeout, true);
  m_transport.respond(200);
  ASSERT_TRUE(send());
  EXPECT_EQ(m_transport.calls(), 3);
  EXPECT_EQ(m_clock.sleeps().size(), 2U);
}

TEST_F(RetryTest, ReturnsLastTransportErrorWhenAttemptsRunOut) {
  for (int i = 0; i < 3; ++i) {
    m_transport.error(ErrorKind::network, true);
  }
  auto result = send();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ErrorKind::network);
  EXPECT_EQ(m_transport.calls(), 3);
}

TEST_F(RetryTest, DoesNotRetryNonRetryableTransportErrors) {
  m_transport.error(ErrorKind::config, false);
  auto result = send();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ErrorKind::config);
  EXPECT_EQ(m_transport.calls(), 1);
}

TEST_F(RetryTest, StreamThatDeliveredBytesIsNotRetried) {
  m_transport.error(ErrorKind::network, true, "data: {\"partial\"");
  std::string received;
  auto result = send({}, [&](std::string_view chunk) {
    received.append(chunk);
    return true;
  });
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ErrorKind::network);
  EXPECT_EQ(received, "data: {\"partial\"");
  EXPECT_EQ(m_transport.calls(), 1);
}

TEST_F(RetryTest, StreamThatFailedBeforeAnyByteIsRetried) {
  m_transport.error(ErrorKind::network, true);
  m_transport.respond(200);
  auto result = send({}, [](std::string_view) { return true; });
  ASSERT_TRUE(result);
  EXPECT_EQ(m_transport.calls(), 2);
}

TEST_F(RetryTest, CancelDuringBackoffReturnsCancelled) {
  m_transport.respond(503);
  RetryHooks hooks;
  hooks.on_retry = [this](const Error&, int, milliseconds) { m_cancel.cancel(); };
  auto result = send(hooks);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ErrorKind::cancelled);
  EXPECT_EQ(m_transport.calls(), 1);
}

} // namespace
} // namespace ralph::http
