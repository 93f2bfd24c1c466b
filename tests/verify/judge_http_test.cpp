// The judge over real HTTP: the OpenAI and Anthropic providers from the factory against the
// loopback fake server. What goes on the wire, and what the faults become.
#include "fake_provider/fake_provider_server.h"
#include "support/fake_clock.h"
#include "support/temp_dir.h"

#include "ralph/http/curl_transport.h"
#include "ralph/llm/factory.h"
#include "ralph/verify/judge_verifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace ralph::verify {
namespace {

using nlohmann::json;
using ralph::testing::FakeProviderServer;
using ralph::testing::FakeTurn;
using ralph::testing::Fault;
using ::testing::HasSubstr;
using ::testing::Not;

enum class Api { openai, anthropic };

constexpr const char* k_key = "sk-judge-key-77aa";

FakeTurn text_turn(std::string text) {
  FakeTurn turn;
  turn.text = std::move(text);
  return turn;
}

FakeTurn fault_turn(Fault fault) {
  FakeTurn turn = text_turn("PASS");
  turn.fault = fault;
  return turn;
}

class JudgeHttpTest : public ::testing::TestWithParam<Api> {
protected:
  JudgeHttpTest() {
    conversation = {
        Message{.role = Role::user, .content = "Summarise notes.txt in three bullet points."},
        Message{.role = Role::assistant,
                .tool_calls = {{"call_1", "read_file", R"({"path":"notes.txt"})"}}},
        Message{.role = Role::tool,
                .content = "Meeting moved to Friday. Budget approved.",
                .tool_call_id = "call_1",
                .tool_name = "read_file"},
        Message{.role = Role::assistant, .content = "- Meeting on Friday\n- Budget approved"}};
    attempt.goal = conversation[0].content;
    attempt.answer = conversation.back().content;
    attempt.raw_answer = attempt.answer;
    attempt.conversation = conversation;
    attempt.tools = {{.id = "call_1",
                      .name = "read_file",
                      .arguments = R"({"path":"notes.txt"})",
                      .duration_ms = 2}};
    attempt.metadata = {"answered", 1500, 2, 1};
    attempt.workspace = workspace.path();
    workspace.write("AGENTS.md", "Bullet points start with a dash.");
  }

  llm::ProviderKind kind() const {
    return GetParam() == Api::openai ? llm::ProviderKind::openai : llm::ProviderKind::anthropic;
  }
  std::string api_name() const { return to_string(kind()); }

  Verdict judge() {
    llm::ProviderConfig config;
    config.spec = {kind(), "judge-model"};
    config.base_url = server.base_url() + (GetParam() == Api::openai ? "/v1" : "");
    config.api_key = k_key;
    config.retry.max_attempts = 3; // the tries these tests count
    auto provider = llm::make_provider(config, transport, clock);
    EXPECT_TRUE(provider) << provider.error().message;
    JudgeVerifier verifier(**provider, {kind(), "judge-model"}, options);
    return verifier.verify(attempt, cancel);
  }

  json body(std::size_t i = 0) const { return json::parse(server.requests().at(i).body); }

  FakeProviderServer server;
  http::CurlTransport transport; // destroyed before the server: its connection closes first
  ralph::testing::FakeClock clock;
  ralph::testing::TempDir workspace;
  std::vector<Message> conversation;
  Attempt attempt;
  JudgeSettings options;
  CancelToken cancel;
};

TEST_P(JudgeHttpTest, StructuredVerdictRoundTrip) {
  server.push(text_turn(R"({"reasoning":"Two bullets, three asked.","verdict":"FAIL",)"
                        R"("category":"incomplete","feedback":"Add a third bullet point."})"));
  const Verdict verdict = judge();
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "incomplete");
  EXPECT_EQ(verdict.feedback, "Add a third bullet point.");
  EXPECT_EQ(verdict.model, api_name() + "/judge-model");
  EXPECT_GT(verdict.usage.input_tokens, 0);
  EXPECT_GT(verdict.usage.output_tokens, 0);
  ASSERT_EQ(server.requests().size(), 1u);
}

TEST_P(JudgeHttpTest, ServerIgnoringTheSchemaAnswersInText) {
  server.push(text_turn("Goal: met. Completeness: met. Rules: met.\n**PASS**"));
  EXPECT_EQ(judge().result, Outcome::pass);
}

TEST_P(JudgeHttpTest, RequestIsToolFreeDeterministicAndOrdered) {
  server.push(text_turn("PASS"));
  judge();
  const json sent = body();
  EXPECT_EQ(sent["model"], "judge-model");
  EXPECT_FALSE(sent.contains("tools"));
  EXPECT_FALSE(sent.contains("tool_choice"));
  EXPECT_EQ(sent["temperature"], 0);
  EXPECT_EQ(sent["stream"], false);
  std::string system;
  std::string user;
  if (GetParam() == Api::openai) {
    EXPECT_EQ(sent["max_completion_tokens"], 512);
    const json& format = sent["response_format"];
    EXPECT_EQ(format["type"], "json_schema");
    EXPECT_EQ(format["json_schema"]["name"], "judge_verdict");
    EXPECT_EQ(format["json_schema"]["strict"], true);
    EXPECT_EQ(format["json_schema"]["schema"]["properties"]["verdict"]["enum"],
              json::array({"PASS", "FAIL"}));
    ASSERT_EQ(sent["messages"].size(), 2u);
    EXPECT_EQ(sent["messages"][0]["role"], "system");
    system = sent["messages"][0]["content"];
    EXPECT_EQ(sent["messages"][1]["role"], "user");
    user = sent["messages"][1]["content"];
  } else {
    EXPECT_EQ(sent["max_tokens"], 512);
    EXPECT_EQ(sent["output_config"]["format"]["type"], "json_schema");
    EXPECT_EQ(sent["output_config"]["format"]["schema"]["required"].size(), 4u);
    system = sent["system"];
    ASSERT_EQ(sent["messages"].size(), 1u);
    EXPECT_EQ(sent["messages"][0]["role"], "user");
    const json& content = sent["messages"][0]["content"];
    user = content.is_string() ? content.get<std::string>() : content[0]["text"].get<std::string>();
  }
  for (const char* part : {"Goal achievement", "Completeness", "Rule compliance", "goal_missed",
                           "incomplete", "rule_violation", "tone_mismatch", "refusal", "blocked"}) {
    EXPECT_THAT(system, HasSubstr(part));
  }
  std::size_t previous = 0;
  for (const char* tag :
       {"<request>\nSummarise notes.txt in three bullet points.\n</request>",
        "<user_rules>\n### AGENTS.md\nBullet points start with a dash.", "<history>",
        "assistant called read_file({\"path\":\"notes.txt\"})", "<execution_metadata>",
        "1. read_file: ok, 2 ms", "<answer>\n- Meeting on Friday\n- Budget approved\n</answer>"}) {
    const std::size_t at = user.find(tag, previous); // each after the one before
    ASSERT_NE(at, std::string::npos) << tag << "\n" << user;
    previous = at + std::string_view(tag).size();
  }
  EXPECT_TRUE(user.ends_with("</answer>"));
  EXPECT_THAT(user, Not(HasSubstr(k_key)));
}

TEST_P(JudgeHttpTest, SlowServerIsATimeout) {
  options.timeout = std::chrono::seconds(1);
  FakeTurn slow = text_turn("PASS");
  slow.fault = Fault::slow_first_byte;
  slow.first_byte_delay = std::chrono::minutes(10);
  server.push(slow);
  const Verdict verdict = judge(); // ends when the judge's own deadline fires
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "timeout");
  EXPECT_EQ(verdict.feedback, "the judge timed out after 1 s");
  EXPECT_FALSE(cancel.cancelled());
}

TEST_P(JudgeHttpTest, ServerErrorsUntilRetriesRunOutAreAProviderError) {
  for (int i = 0; i < 3; ++i) {
    server.push(fault_turn(Fault::http_500));
  }
  const Verdict verdict = judge();
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "provider_error");
  EXPECT_THAT(verdict.feedback, HasSubstr("500"));
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(clock.sleeps().size(), 2u) << "backoff went through the injected clock";
}

TEST_P(JudgeHttpTest, AuthenticationErrorIsAProviderErrorWithoutTheKey) {
  server.push(fault_turn(Fault::http_401));
  const Verdict verdict = judge();
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "provider_error");
  EXPECT_THAT(verdict.feedback, HasSubstr("401"));
  EXPECT_THAT(verdict.feedback, Not(HasSubstr(k_key)));
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_P(JudgeHttpTest, MalformedBodyIsAProviderError) {
  for (int i = 0; i < 3; ++i) {
    server.push(fault_turn(Fault::malformed_json));
  }
  const Verdict verdict = judge();
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "provider_error");
}

std::string api_case_name(const ::testing::TestParamInfo<Api>& param) {
  return param.param == Api::openai ? "OpenAi" : "Anthropic";
}

INSTANTIATE_TEST_SUITE_P(BothApis, JudgeHttpTest, ::testing::Values(Api::openai, Api::anthropic),
                         api_case_name);

} // namespace
} // namespace ralph::verify
