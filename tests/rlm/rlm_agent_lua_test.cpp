// The whole RLM path: a real provider for the agent's model, the Lua sandbox over a small
// document, and the model's code calling llm_query and llm_query_batched through
// provider_sub_query, all against the fake provider server.

#include "fake_provider/fake_provider_server.h"
#include "rlm/rlm_test_support.h"
#include "support/http_provider.h"

#include "ralph/http/curl_transport.h"
#include "ralph/llm/factory.h"
#include "ralph/rlm/rlm_agent.h"
#include "ralph/rlm/sub_query.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ralph::rlm {
namespace {

using agent::AgentOutcome;
using agent::AgentStop;
using ralph::testing::FakeProviderServer;
using ralph::testing::FakeTurn;
using ralph::testing::RecordedRequest;
using ::testing::HasSubstr;
using testing::user_message;

constexpr std::string_view k_ledger = "LEDGER 2025\n"
                                      "ALPHA division: revenue 100\n"
                                      "BETA division: revenue 250\n"
                                      "GAMMA division: revenue 75\n";

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

bool is_sub_query(const RecordedRequest& request) {
  return !nlohmann::json::parse(request.body).contains("tools");
}

std::string user_text(const RecordedRequest& request) {
  const auto body = nlohmann::json::parse(request.body);
  for (const auto& message : body.at("messages")) {
    if (message.at("role") == "user") {
      return message.at("content").get<std::string>();
    }
  }
  return {};
}

// Sub-queries (no tools) are answered from the division their context names, whatever order
// the batch's threads send them in; the agent's own turns come from the queue.
std::optional<FakeTurn> answer_sub_queries(const RecordedRequest& request) {
  if (!is_sub_query(request)) {
    return std::nullopt;
  }
  const std::string user = user_text(request);
  const std::pair<const char*, const char*> revenues[] = {
      {"ALPHA", "100"}, {"BETA", "250"}, {"GAMMA", "75"}};
  for (const auto& [division, revenue] : revenues) {
    if (user.find(std::string(division) + " division: revenue " + revenue) != std::string::npos) {
      return text_turn(std::string(division) + " earned " + revenue);
    }
  }
  return text_turn("The context does not say.");
}

TEST(RlmAgentLua, TheModelsCodeAsksSubQueriesOverTheWire) {
  FakeProviderServer server;
  server.set_responder(answer_sub_queries);
  http::CurlTransport transport;
  SystemClock clock; // the sub-queries of a batch run on helper threads

  llm::ProviderConfig config;
  config.spec = {llm::ProviderKind::openai_compat, "main-model"};
  config.base_url = server.base_url() + "/v1";
  auto provider = llm::make_provider(config, transport, clock);
  ASSERT_TRUE(provider) << provider.error().message;
  llm::ProviderConfig sub_config = config;
  sub_config.spec.model = "sub-model";
  SubQueryOptions sub_options;
  sub_options.model = "sub-model";
  const SubQueryFn sub_query =
      provider_sub_query(ralph::testing::http_provider_factory(sub_config, clock), sub_options);

  server.push(code_turn("call_a", R"(first = llm_query("How much did it earn?", doc:line(2))
print(doc:line_count(), first))"));
  server.push(code_turn("call_b", R"(local answers = llm_query_batched({
  {query = "How much did it earn?", context = doc:line(3)},
  {query = "How much did it earn?", context = doc:line(4)},
})
for i, answer in ipairs(answers) do print(i, answer) end
print("still here:", first))"));
  server.push(text_turn("ALPHA 100, BETA 250, GAMMA 75: 425 in total."));

  RlmOptions options;
  options.model = {llm::ProviderKind::openai_compat, "main-model"};
  options.sub_model = "openai-compat/sub-model";
  options.document_name = "ledger.txt";
  options.document_bytes = k_ledger.size();
  RlmAgent agent(
      **provider, [](SubQueryFn fn) { return make_lua_sandbox(k_ledger, std::move(fn)); },
      sub_query, options);
  std::vector<Message> conversation = {user_message("What is the total revenue?")};
  ralph::testing::RecordingSink sink;
  ralph::testing::RecordingObserver observer;
  const AgentOutcome outcome = agent.run(conversation, CancelToken(), observer, sink);

  ASSERT_EQ(outcome.stop, AgentStop::answered) << (outcome.error ? outcome.error->message : "");
  EXPECT_EQ(outcome.answer, "ALPHA 100, BETA 250, GAMMA 75: 425 in total.");
  EXPECT_EQ(outcome.tool_calls, 2);

  std::vector<RecordedRequest> main_requests;
  std::vector<RecordedRequest> sub_requests;
  for (const RecordedRequest& request : server.requests()) {
    (is_sub_query(request) ? sub_requests : main_requests).push_back(request);
  }
  ASSERT_EQ(main_requests.size(), 3u);
  ASSERT_EQ(sub_requests.size(), 3u);
  const auto first_tools = nlohmann::json::parse(main_requests[0].body).at("tools");
  EXPECT_THAT(first_tools[0].at("function").at("description").get<std::string>(),
              HasSubstr("llm_query_batched"));

  // What each execution printed reached the model as its tool result.
  const auto second = nlohmann::json::parse(main_requests[1].body).at("messages");
  EXPECT_EQ(second.back().at("role"), "tool");
  EXPECT_THAT(second.back().at("content").get<std::string>(), HasSubstr("4\tALPHA earned 100"));
  const auto third = nlohmann::json::parse(main_requests[2].body).at("messages");
  const std::string batch_output = third.back().at("content").get<std::string>();
  EXPECT_THAT(batch_output, HasSubstr("1\tBETA earned 250"));
  EXPECT_THAT(batch_output, HasSubstr("2\tGAMMA earned 75"));
  EXPECT_THAT(batch_output, HasSubstr("still here:\tALPHA earned 100"));

  // The sub-queries' tokens are the attempt's too, reported once per execution.
  std::int64_t sub_input = 0;
  std::vector<std::int64_t> counts;
  std::int64_t main_input = 0;
  for (const agent::ModelCall& call : observer.model_calls) {
    if (call.model == "openai-compat/sub-model") {
      sub_input += call.usage.input_tokens;
      counts.push_back(call.requests);
    } else {
      EXPECT_EQ(call.model, "openai-compat/main-model");
      main_input += call.usage.input_tokens;
    }
  }
  EXPECT_EQ(counts, (std::vector<std::int64_t>{1, 2}));
  EXPECT_GT(sub_input, 0);
  EXPECT_EQ(outcome.usage.input_tokens, main_input + sub_input);
}

} // namespace
} // namespace ralph::rlm
