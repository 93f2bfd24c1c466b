// provider_sub_query over real HTTP: a real provider and CurlTransport against the fake server.

#include "fake_provider/fake_provider_server.h"
#include "support/fake_clock.h"
#include "support/http_provider.h"

#include "ralph/http/curl_transport.h"
#include "ralph/rlm/sub_query.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ralph::rlm {
namespace {

using ralph::testing::FakeProviderServer;
using ralph::testing::FakeTurn;
using ralph::testing::Fault;
using ralph::testing::RecordedRequest;
using ::testing::HasSubstr;

// libcurl wants curl_global_init before any thread starts, as `main` does it.
class CurlEnvironment : public ::testing::Environment {
public:
  void SetUp() override { m_global = std::make_unique<http::CurlGlobal>(); }
  void TearDown() override { m_global.reset(); }

private:
  std::unique_ptr<http::CurlGlobal> m_global;
};

[[maybe_unused]] const auto* const k_curl_environment =
    ::testing::AddGlobalTestEnvironment(new CurlEnvironment);

FakeTurn text_turn(std::string text) {
  FakeTurn turn;
  turn.text = std::move(text);
  return turn;
}

// The text of the request's user message (OpenAI wire format).
std::string user_text(const RecordedRequest& request) {
  const auto body = nlohmann::json::parse(request.body);
  for (const auto& message : body.at("messages")) {
    if (message.at("role") == "user") {
      return message.at("content").get<std::string>();
    }
  }
  return {};
}

class SubQueryTest : public ::testing::Test {
protected:
  llm::ProviderConfig config() const {
    llm::ProviderConfig out;
    out.spec = {llm::ProviderKind::openai_compat, "sub-model"};
    out.base_url = server.base_url() + "/v1";
    return out;
  }

  SubQueryFn sub_query(Clock& use_clock, SubQueryOptions options = {}) {
    options.model = "sub-model";
    return provider_sub_query(ralph::testing::http_provider_factory(config(), use_clock),
                              std::move(options));
  }

  FakeProviderServer server;
  ralph::testing::FakeClock clock;
};

TEST_F(SubQueryTest, SendsTheQuestionAndTheTrimmedContextWithoutTools) {
  server.push(text_turn("Alice signed on page 3."));
  SubQueryOptions options;
  options.max_context_bytes = 200;
  const std::string context = "HEAD-OF-SLICE " + std::string(1000, 'm') + " END-OF-SLICE";
  const auto answer = sub_query(clock, options)(SubQuery{"Who signed?", context});

  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(answer->text, "Alice signed on page 3.");
  EXPECT_GT(answer->usage.input_tokens, 0);
  EXPECT_GT(answer->usage.output_tokens, 0);

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto body = nlohmann::json::parse(requests[0].body);
  EXPECT_EQ(body.at("model"), "sub-model");
  EXPECT_EQ(body.at("stream"), false);
  EXPECT_EQ(body.at("temperature"), 0.0);
  EXPECT_EQ(body.at("max_tokens"), 1024);
  EXPECT_FALSE(body.contains("tools"));
  EXPECT_THAT(body.at("messages").at(0).at("content").get<std::string>(),
              HasSubstr("only the context"));
  const std::string user = user_text(requests[0]);
  EXPECT_THAT(user, HasSubstr("Question: Who signed?"));
  EXPECT_THAT(user, HasSubstr("HEAD-OF-SLICE"));
  EXPECT_THAT(user, HasSubstr("END-OF-SLICE"));
  EXPECT_THAT(user, HasSubstr("bytes omitted"));
  EXPECT_LT(user.size(), 400u);
}

TEST_F(SubQueryTest, InvalidUtf8InTheContextIsRepaired) {
  server.push(text_turn("ok"));
  const auto answer = sub_query(clock)(SubQuery{"What?", std::string("caf\xC3", 4) + "\xFF end"});

  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_THAT(user_text(server.requests().at(0)), HasSubstr("caf\xEF\xBF\xBD"));
}

// A provider's default policy retries as often as the CLI's (http.max_retries, five).
TEST_F(SubQueryTest, ServerErrorsAfterTheRetriesAreAnError) {
  const auto tries = static_cast<std::size_t>(HttpSettings{}.max_retries) + 1;
  for (std::size_t i = 0; i < tries + 1; ++i) {
    FakeTurn turn;
    turn.fault = Fault::http_500;
    server.push(turn);
  }
  const auto answer = sub_query(clock)(SubQuery{"Who?", "text"});

  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().http_status, 500);
  EXPECT_EQ(server.requests().size(), tries) << "the default policy tries as the CLI does";
  EXPECT_EQ(clock.sleeps().size(), tries - 1);
}

TEST_F(SubQueryTest, AnEmptyAnswerIsAnError) {
  server.push(text_turn(""));
  const auto answer = sub_query(clock)(SubQuery{"Who?", "text"});

  ASSERT_FALSE(answer);
  EXPECT_THAT(answer.error().message, HasSubstr("empty answer"));
}

TEST_F(SubQueryTest, ACancelledTokenSendsNothing) {
  SubQueryOptions options;
  options.cancel.cancel();
  const auto answer = sub_query(clock, options)(SubQuery{"Who?", "text"});

  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, ErrorKind::cancelled);
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(SubQueryTest, AProviderThatCannotBeBuiltIsAnError) {
  llm::ProviderConfig keyless;
  keyless.spec = {llm::ProviderKind::openai, "gpt-4.1"};
  const auto answer = provider_sub_query(ralph::testing::http_provider_factory(keyless, clock),
                                         {})(SubQuery{"Who?", "text"});

  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, ErrorKind::config);
  EXPECT_THAT(answer.error().message, HasSubstr("OPENAI_API_KEY"));
}

TEST_F(SubQueryTest, ConcurrentCallsEachGetTheirOwnAnswer) {
  // The order of concurrent requests is not deterministic: answer by content.
  server.set_responder([](const RecordedRequest& request) -> std::optional<FakeTurn> {
    const std::string user = user_text(request);
    const auto at = user.find("Question: ");
    if (at == std::string::npos) {
      return std::nullopt;
    }
    return text_turn("answer to " + user.substr(at + 10));
  });
  SystemClock system_clock; // thread-safe, unlike FakeClock; nothing here retries
  const SubQueryFn ask = sub_query(system_clock);
  constexpr int k_threads = 6;
  constexpr int k_calls = 4;
  std::vector<std::vector<std::string>> answers(k_threads);
  std::vector<std::thread> threads;
  threads.reserve(k_threads);
  for (int t = 0; t < k_threads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < k_calls; ++i) {
        const auto answer = ask(SubQuery{fmt::format("thread {} call {}", t, i), "ctx"});
        answers[t].push_back(answer ? answer->text : "ERROR " + answer.error().message);
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }

  for (int t = 0; t < k_threads; ++t) {
    ASSERT_EQ(answers[t].size(), static_cast<std::size_t>(k_calls));
    for (int i = 0; i < k_calls; ++i) {
      EXPECT_EQ(answers[t][i], fmt::format("answer to thread {} call {}", t, i));
    }
  }
  EXPECT_EQ(server.requests().size(), static_cast<std::size_t>(k_threads * k_calls));
}

TEST_F(SubQueryTest, AResponderFallsBackToTheQueue) {
  server.set_responder([](const RecordedRequest&) { return std::optional<FakeTurn>(); });
  server.push(text_turn("from the queue"));
  const auto answer = sub_query(clock)(SubQuery{"Who?", "text"});

  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(answer->text, "from the queue");
  EXPECT_EQ(server.turns_left(), 0u);
}

} // namespace
} // namespace ralph::rlm
