#include "llm/provider_error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::llm {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

http::Response response(int status, std::string body, http::Headers headers = {}) {
  http::Response r;
  r.status = status;
  r.body = std::move(body);
  r.headers = std::move(headers);
  return r;
}

TEST(ProviderError, OpenAiBodyBecomesOneTypedLine) {
  const Error error = status_error(
      "openai",
      response(
          401,
          R"({"error":{"message":"Incorrect API key provided: sk-abc***xyz.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}})",
          {{"x-request-id", "req_123"}}),
      "");
  EXPECT_EQ(error.kind, ErrorKind::provider);
  EXPECT_EQ(error.http_status, 401);
  EXPECT_FALSE(error.retryable);
  EXPECT_EQ(error.message,
            "openai: HTTP 401 invalid_api_key: Incorrect API key provided: sk-abc***xyz. "
            "(request req_123)");
}

TEST(ProviderError, AnthropicBodyWithRequestIdInTheBody) {
  const Error error = status_error(
      "anthropic",
      response(
          529,
          R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011"})"),
      "");
  EXPECT_EQ(error.message, "anthropic: HTTP 529 overloaded_error: Overloaded (request req_011)");
  EXPECT_TRUE(error.retryable);
}

TEST(ProviderError, RequestIdHeaderOfAnthropic) {
  const Error error = status_error(
      "anthropic",
      response(
          400,
          R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208656 tokens > 200000 maximum"}})",
          {{"request-id", "req_h"}}),
      "");
  EXPECT_THAT(error.message, HasSubstr("HTTP 400 invalid_request_error: prompt is too long"));
  EXPECT_THAT(error.message, HasSubstr("(request req_h)"));
  EXPECT_FALSE(error.retryable);
}

TEST(ProviderError, LlamaCppIntegerCodeFallsBackToType) {
  const Error error = status_error(
      "openai-compat",
      response(
          400,
          R"({"error":{"code":400,"message":"request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9412,"n_ctx":8192}})"),
      "");
  EXPECT_THAT(error.message, HasSubstr("HTTP 400 exceed_context_size_error: request (9412"));
}

TEST(ProviderError, LlamaCppLoadingModelIsRetried) {
  const Error error = status_error(
      "openai-compat",
      response(503,
               R"({"error":{"code":503,"message":"Loading model","type":"unavailable_error"}})"),
      "");
  EXPECT_TRUE(error.retryable);
  EXPECT_THAT(error.message, HasSubstr("unavailable_error: Loading model"));
}

TEST(ProviderError, VllmFlatAndStringBodies) {
  const Error flat = status_error(
      "openai-compat",
      response(
          400,
          R"({"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400})"),
      "");
  EXPECT_THAT(flat.message, HasSubstr("HTTP 400 BadRequestError: "));
  EXPECT_THAT(flat.message, HasSubstr("requires --enable-auto-tool-choice"));

  const Error unauthorized =
      status_error("openai-compat", response(401, R"({"error":"Unauthorized"})"), "");
  EXPECT_EQ(unauthorized.message, "openai-compat: HTTP 401: Unauthorized");
}

TEST(ProviderError, OllamaStringError) {
  const Error error =
      status_error("ollama", response(404, R"({"error":"model 'qwen9' not found"})"), "");
  EXPECT_EQ(error.message, "ollama: HTTP 404: model 'qwen9' not found");
  EXPECT_FALSE(error.retryable);
}

TEST(ProviderError, HtmlAndEmptyBodies) {
  const Error html = status_error(
      "openai",
      response(502, "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>x</body>"), "");
  EXPECT_EQ(html.message, "openai: HTTP 502: 502 Bad Gateway");
  EXPECT_TRUE(html.retryable);

  const Error bare = status_error("openai", response(413, "<p>Request\nEntity Too Large</p>"), "");
  EXPECT_EQ(bare.message, "openai: HTTP 413: Request Entity Too Large");

  const Error empty = status_error("anthropic", response(500, ""), "");
  EXPECT_EQ(empty.message, "anthropic: HTTP 500: empty response body");
  EXPECT_TRUE(empty.retryable);
}

TEST(ProviderError, QuotaAndOversizedRequestsAreNotRetried) {
  const Error quota = status_error(
      "openai",
      response(
          429,
          R"({"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}})"),
      "");
  EXPECT_FALSE(quota.retryable);

  const Error too_large = status_error(
      "openai",
      response(
          429,
          R"({"error":{"message":"Request too large for gpt-4.1 on tokens per min (TPM): Limit 30000, Requested 50000.","type":"tokens","param":null,"code":"rate_limit_exceeded"}})"),
      "");
  EXPECT_FALSE(too_large.retryable);

  const Error limited = status_error(
      "openai",
      response(
          429,
          R"({"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}})",
          {{"retry-after-ms", "250"}}),
      "");
  EXPECT_TRUE(limited.retryable);
  EXPECT_EQ(limited.retry_after, std::chrono::milliseconds(250));
}

TEST(ProviderError, ShouldRetryHeaderWins) {
  const Error error =
      status_error("openai", response(500, "{}", {{"x-should-retry", "false"}}), "");
  EXPECT_FALSE(error.retryable);
}

TEST(ProviderError, KeyEchoedByTheServerIsRedactedEverywhere) {
  const std::string key = "sk-test-SECRET-0123456789";
  const std::string long_tail(400, 'x');
  const Error error = status_error(
      "openai",
      response(401,
               R"({"error":{"message":"Incorrect API key provided: )" + key + " " + long_tail +
                   R"(","type":"invalid_request_error","param":null,"code":"invalid_api_key"}})",
               {{"x-request-id", key}}),
      key);
  EXPECT_THAT(error.message, Not(HasSubstr(key)));
  EXPECT_THAT(error.message, HasSubstr("[REDACTED]"));
  EXPECT_THAT(error.message, HasSubstr("(request [REDACTED])"));

  // A key cut by the length cap must not leave a fragment behind either.
  const std::string near_the_cut(290, 'y');
  const Error cut = status_error(
      "openai", response(500, R"({"error":{"message":")" + near_the_cut + key + R"("}})"), key);
  EXPECT_THAT(cut.message, Not(HasSubstr("sk-test")));

  const Error html = status_error("openai", response(502, "<b>bad key " + key + "</b>"), key);
  EXPECT_THAT(html.message, Not(HasSubstr(key)));
}

TEST(ProviderError, PayloadErrorsInEachShape) {
  const Error openai = payload_error(
      "openai",
      nlohmann::json::parse(
          R"({"error":{"message":"boom","type":"server_error","param":null,"code":null}})"),
      "");
  EXPECT_TRUE(openai.retryable);
  EXPECT_EQ(openai.message, "openai: error in response server_error: boom");

  const Error llama = payload_error(
      "openai-compat",
      nlohmann::json::parse(R"({"code":500,"message":"slot gone","type":"whatever"})"), "");
  EXPECT_TRUE(llama.retryable) << "integer code 500";

  const Error bad = payload_error(
      "anthropic",
      nlohmann::json::parse(
          R"({"type":"error","error":{"type":"invalid_request_error","message":"no"}})"),
      "");
  EXPECT_FALSE(bad.retryable);
}

TEST(ProviderError, RedactAndPrefix) {
  Error error;
  error.message = "POST http://h/v1?k=KEY failed";
  add_provider_prefix(error, "openai");
  add_provider_prefix(error, "openai");
  redact(error, "KEY");
  EXPECT_EQ(error.message, "openai: POST http://h/v1?k=[REDACTED] failed");
}

} // namespace
} // namespace ralph::llm
