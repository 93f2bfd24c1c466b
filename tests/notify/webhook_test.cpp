// Webhook deliveries against a real HTTP receiver on 127.0.0.1: the request, its signature, and
// which answers are retried (the waits on a fake clock, so no test sleeps).
#include "notify/webhook_receiver.h"
#include "support/fake_clock.h"

#include "ralph/http/curl_transport.h"
#include "ralph/notify/signature.h"
#include "ralph/notify/webhook.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string>

namespace ralph::notify {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::openssl_hmac_hex;
using testing::WebhookReceiver;

Notification sample() {
  return make_notification(NotifyEvent::completed,
                           R"({"event":"completed","session":"s1","goal":"ship it"})", 1767225600,
                           "session s1");
}

class Webhook : public ::testing::Test {
protected:
  Result<void> deliver(const NotifyTarget& target, const std::string& secret = "") {
    return deliver_webhook(transport, clock, target, notification, secret, CancelToken());
  }
  WebhookReceiver receiver;
  http::CurlTransport transport;
  ralph::testing::FakeClock clock;
  Notification notification = sample();
};

TEST(Signature, IsHmacSha256OfTheTimestampADotAndTheBody) {
  // RFC 4231, test case 2.
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(signature_header("k3y", 1767225600, "{\"a\":1}"),
            "sha256=" + openssl_hmac_hex("k3y", "1767225600.{\"a\":1}"));
}

TEST_F(Webhook, PostsTheJsonWithHeadersAReceiverCanVerify) {
  NotifyTarget target{.url = receiver.url("/hooks/ralph?token=abc"),
                      .headers = {{"Authorization", "Bearer t0ken"}}};
  ASSERT_TRUE(deliver(target, "the-hmac-key"));
  const auto got = receiver.received();
  ASSERT_EQ(got.size(), 1U);
  const auto& request = got[0];
  EXPECT_EQ(request.path, "/hooks/ralph");
  EXPECT_EQ(request.body, notification.body);
  EXPECT_EQ(request.headers.at("content-type"), "application/json");
  EXPECT_EQ(request.headers.at("user-agent"), "ralph/" RALPH_VERSION);
  EXPECT_EQ(request.headers.at("x-ralph-event"), "completed");
  EXPECT_EQ(request.headers.at("x-ralph-delivery"), notification.id);
  EXPECT_FALSE(notification.id.empty());
  EXPECT_EQ(request.headers.at("x-ralph-timestamp"), "1767225600");
  EXPECT_EQ(request.headers.at("authorization"), "Bearer t0ken");
  // What a receiver does: the HMAC of "TIMESTAMP.BODY" under the shared key.
  const std::string expected =
      "sha256=" + openssl_hmac_hex("the-hmac-key",
                                   request.headers.at("x-ralph-timestamp") + "." + request.body);
  EXPECT_EQ(request.headers.at("x-ralph-signature-256"), expected);
  EXPECT_THAT(request.body, Not(HasSubstr("the-hmac-key")));
}

TEST_F(Webhook, WithoutASecretThereIsNoSignature) {
  ASSERT_TRUE(deliver(NotifyTarget{.url = receiver.url("/h")}));
  ASSERT_EQ(receiver.received().size(), 1U);
  EXPECT_EQ(receiver.received()[0].headers.count("x-ralph-signature-256"), 0U);
}

TEST_F(Webhook, ServerErrorsAndRateLimitsAreRetriedWithBackoffAndRetryAfter) {
  receiver.answer({.status = 500});
  receiver.answer({.status = 429, .headers = {{"Retry-After", "7"}}});
  receiver.answer({.status = 503});
  ASSERT_TRUE(deliver(NotifyTarget{.url = receiver.url("/h")}, "k"));
  const auto got = receiver.received();
  ASSERT_EQ(got.size(), 4U);
  for (const auto& request : got) {
    // One delivery: the same id, timestamp, body and signature on every try.
    EXPECT_EQ(request.headers.at("x-ralph-delivery"), notification.id);
    EXPECT_EQ(request.body, got[0].body);
    EXPECT_EQ(request.headers.at("x-ralph-signature-256"),
              got[0].headers.at("x-ralph-signature-256"));
  }
  const auto sleeps = clock.sleeps();
  ASSERT_EQ(sleeps.size(), 3U);
  // 1 s after the 500 (with jitter: 0.75 to 1), the 7 s the 429 asked for, 4 s after the 503
  // (the third try's backoff).
  EXPECT_GE(sleeps[0], std::chrono::milliseconds(750));
  EXPECT_LE(sleeps[0], std::chrono::milliseconds(1000));
  EXPECT_EQ(sleeps[1], std::chrono::seconds(7));
  EXPECT_GE(sleeps[2], std::chrono::milliseconds(3000));
  EXPECT_LE(sleeps[2], std::chrono::milliseconds(4000));
}

TEST_F(Webhook, ABadRequestIsNotRetried) {
  receiver.answer({.status = 400});
  const auto delivered = deliver(NotifyTarget{.url = receiver.url("/h")});
  ASSERT_FALSE(delivered);
  EXPECT_EQ(delivered.error().message, "HTTP 400");
  EXPECT_EQ(receiver.received().size(), 1U);
  EXPECT_TRUE(clock.sleeps().empty());
}

TEST_F(Webhook, TriesAreBoundedAndTheLastAnswerIsTheError) {
  for (int i = 0; i < 10; ++i) {
    receiver.answer({.status = 502});
  }
  const auto delivered = deliver(NotifyTarget{.url = receiver.url("/h")});
  ASSERT_FALSE(delivered);
  EXPECT_EQ(delivered.error().message, "HTTP 502");
  EXPECT_EQ(receiver.received().size(), 4U);
}

TEST_F(Webhook, AReceiverThatIsDownFailsAfterItsTriesWithoutShowingTheUrlsToken) {
  std::string url;
  {
    WebhookReceiver gone;
    url = gone.url("/T000/B000/s3cr3tpath?token=s3cr3tquery");
  }
  const auto delivered = deliver(NotifyTarget{.url = url});
  ASSERT_FALSE(delivered);
  EXPECT_EQ(clock.sleeps().size(), 3U);
  EXPECT_THAT(delivered.error().message, Not(HasSubstr("s3cr3t")));
  EXPECT_THAT(delivered.error().message, HasSubstr("http://127.0.0.1:"));
  const NotifyTarget target{.url = "https://user:pw@hooks.example.com:8443/T0/s3cr3t?t=s3cr3t",
                            .origin = "cfg.toml:4"};
  EXPECT_EQ(describe_target(target), "webhook https://hooks.example.com:8443/… (cfg.toml:4)");
}

} // namespace
} // namespace ralph::notify
