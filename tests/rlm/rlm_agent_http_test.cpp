// The RLM agent with a real provider and CurlTransport against the fake provider server.

#include "fake_provider/fake_provider_server.h"
#include "rlm/rlm_test_support.h"
#include "support/fake_clock.h"

#include "ralph/http/curl_transport.h"
#include "ralph/llm/factory.h"
#include "ralph/rlm/rlm_agent.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace ralph::rlm {
namespace {

using agent::AgentOutcome;
using agent::AgentStop;
using ralph::testing::FakeProviderServer;
using ralph::testing::FakeTurn;
using testing::every_call_answered;
using testing::FakeSandboxes;
using ::testing::HasSubstr;
using testing::user_message;

FakeTurn code_turn(std::string id, const std::string& code) {
  FakeTurn turn;
  turn.tool_calls = {ToolCall{std::move(id), "lua", nlohmann::json{{"code", code}}.dump()}};
  return turn;
}

FakeTurn text_turn(std::string text) {
  FakeTurn turn;
  turn.text = std::move(text);
  return turn;
}

class RlmAgentHttp : public ::testing::Test {
protected:
  RlmAgentHttp() {
    llm::ProviderConfig config;
    config.spec = {llm::ProviderKind::openai_compat, "main-model"};
    config.base_url = server.base_url() + "/v1";
    config.retry.max_attempts = 3; // the tries these tests count
    auto made = llm::make_provider(config, transport, clock);
    EXPECT_TRUE(made) << made.error().message;
    provider = std::move(*made);
    options.model = {llm::ProviderKind::openai_compat, "main-model"};
    options.instructions = "Answer with the total.";
    options.document_name = "ledger.txt";
    options.document_bytes = 4096;
    conversation.push_back(user_message("What is the total of the ledger?"));
  }

  AgentOutcome run() {
    RlmAgent agent(*provider, sandboxes.factory(), nullptr, options);
    return agent.run(conversation, CancelToken(), observer, sink);
  }

  static nlohmann::json body(const ralph::testing::RecordedRequest& request) {
    return nlohmann::json::parse(request.body);
  }

  FakeProviderServer server;
  http::CurlTransport transport; // destroyed before the server: its connection closes first
  ralph::testing::FakeClock clock;
  std::unique_ptr<llm::Provider> provider;
  FakeSandboxes sandboxes;
  RlmOptions options;
  ralph::testing::RecordingSink sink;
  ralph::testing::RecordingObserver observer;
  std::vector<Message> conversation;
};

TEST_F(RlmAgentHttp, ExecutionOutputsGoBackOverTheWire) {
  server.push(code_turn("call_a", "print(#doc)"));
  server.push(code_turn("call_b", "print(total)"));
  server.push(text_turn("The total is 42."));
  const AgentOutcome outcome = run();

  ASSERT_EQ(outcome.stop, AgentStop::answered) << (outcome.error ? outcome.error->message : "");
  EXPECT_EQ(outcome.answer, "The total is 42.");
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  const auto first = body(requests[0]);
  ASSERT_EQ(first.at("tools").size(), 1u);
  EXPECT_EQ(first.at("tools")[0].at("function").at("name"), "lua");
  const auto third = body(requests[2]);
  const auto& messages = third.at("messages");
  // system, user, assistant (call_a), tool, assistant (call_b), tool
  ASSERT_EQ(messages.size(), 6u);
  EXPECT_EQ(messages[3].at("role"), "tool");
  EXPECT_EQ(messages[3].at("tool_call_id"), "call_a");
  EXPECT_EQ(messages[3].at("content"), "ran: print(#doc)");
  EXPECT_EQ(messages[5].at("tool_call_id"), "call_b");
  EXPECT_EQ(messages[5].at("content"), "ran: print(total)");
}

TEST_F(RlmAgentHttp, TheFallbackRequestHasNoToolsAndCarriesTheTrajectory) {
  options.settings.max_steps = 2;
  server.push(code_turn("call_a", "print(sum_column(3))"));
  server.push(code_turn("call_b", "print(check())"));
  server.push(text_turn("The total is 42 (from the record)."));
  const AgentOutcome outcome = run();

  ASSERT_EQ(outcome.stop, AgentStop::answered) << (outcome.error ? outcome.error->message : "");
  EXPECT_EQ(outcome.answer, "The total is 42 (from the record).");
  EXPECT_TRUE(every_call_answered(conversation));
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  const auto fallback = body(requests[2]);
  EXPECT_FALSE(fallback.contains("tools"));
  const auto& messages = fallback.at("messages");
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].at("role"), "system");
  EXPECT_THAT(messages[0].at("content").get<std::string>(), HasSubstr("Answer with the total."));
  const std::string prompt = messages[1].at("content").get<std::string>();
  EXPECT_THAT(prompt, HasSubstr("What is the total of the ledger?"));
  EXPECT_THAT(prompt, HasSubstr("print(sum_column(3))"));
  EXPECT_THAT(prompt, HasSubstr("ran: print(sum_column(3))"));
}

TEST_F(RlmAgentHttp, AServerErrorInTheFallbackFailsTheAttempt) {
  options.settings.max_steps = 1;
  server.push(code_turn("call_a", "print(1)"));
  for (int i = 0; i < 3; ++i) {
    FakeTurn turn;
    turn.fault = ralph::testing::Fault::http_500;
    server.push(turn);
  }
  const AgentOutcome outcome = run();

  EXPECT_EQ(outcome.stop, AgentStop::failed);
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_THAT(outcome.error->message,
              HasSubstr("the step budget of 1 model call ran out and the fallback extraction "
                        "failed: "));
  EXPECT_EQ(outcome.error->http_status, 500);
  EXPECT_EQ(sink.of<event::Retry>().size(), 2u);
  EXPECT_TRUE(every_call_answered(conversation));
}

} // namespace
} // namespace ralph::rlm
