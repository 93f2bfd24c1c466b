// Hostile model output end to end, over real HTTP against the fake provider server: tool-call
// arguments nested 70,000 deep and numbers no double holds. ralph must neither crash nor end in
// an "internal error", must print its --json result and must leave no session `active`.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

class HostileInputEndToEnd : public ::testing::Test {
protected:
  std::vector<std::string> args(std::vector<std::string> extra) const {
    std::vector<std::string> all{"run",
                                 "--model",
                                 "openai-compat/test-model",
                                 "--base-url",
                                 server.base_url() + "/v1",
                                 "--workspace",
                                 workspace.path().string(),
                                 "--json"};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }

  // The status `ralph sessions show` reports for session `id`.
  std::string recorded_status(const std::string& id) const {
    return show_session(id, workspace.path())["status"].get<std::string>();
  }

  FakeProviderServer server;
  TempDir workspace;
  TempDir cwd;
};

TEST_F(HostileInputEndToEnd, ArgumentsNested70000DeepAreAToolErrorAndTheRunGoesOn) {
  constexpr std::size_t k_depth = 70'000;
  FakeTurn deep;
  deep.tool_calls.push_back(
      {.name = "write_file",
       .arguments = "{\"path\": " + std::string(k_depth, '[') + std::string(k_depth, ']') + "}"});
  server.push(deep);
  server.push(text_turn("Sorry, I will not do that."));

  const auto result = run_ralph(args({"write a file"}), cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err.substr(0, 2000);
  EXPECT_THAT(result.err, Not(HasSubstr("internal error")));
  const auto out = json::parse(result.out);
  EXPECT_EQ(out["status"], "completed");
  EXPECT_EQ(out["answer"], "Sorry, I will not do that.");
  // The model got the failure as the call's result.
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  const auto last = json::parse(requests[1].body)["messages"].back();
  EXPECT_EQ(last["role"], "tool");
  EXPECT_THAT(last["content"].get<std::string>(), HasSubstr("nested deeper than 512 levels"));
  EXPECT_EQ(recorded_status(out["session_id"]), "completed");
}

TEST_F(HostileInputEndToEnd, ANumberNoDoubleHoldsIsAMalformedResponseWithAJsonResult) {
  FakeTurn overflow;
  overflow.fault = Fault::custom_error; // a 200 with this body verbatim
  overflow.status = 200;
  overflow.error_body = R"({"id":"chatcmpl-1","object":"chat.completion","created":1,)"
                        R"("model":"test-model","choices":[{"index":0,"message":{"role":)"
                        R"("assistant","content":"hi"},"finish_reason":"stop"}],)"
                        R"("usage":{"prompt_tokens":1e999,"completion_tokens":1}})";
  server.push(overflow);

  // No retries: the fault answers one request, and this test is about how it is reported.
  const auto result =
      run_ralph(args({"answer", "--no-stream"}), cwd.path(), {{"RALPH_HTTP_MAX_RETRIES", "0"}});

  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_THAT(result.err, Not(HasSubstr("internal error")));
  EXPECT_THAT(result.err, HasSubstr("number out of range"));
  const auto out = json::parse(result.out);
  EXPECT_EQ(out["status"], "failed");
  EXPECT_EQ(out["error"]["kind"], "parse");
  EXPECT_EQ(recorded_status(out["session_id"]), "failed");
}

// The Anthropic wire without streaming: the tool input is part of the response's own JSON, so
// what no parse holds must stay the call's, not the response's.
class HostileAnthropicBodyEndToEnd : public HostileInputEndToEnd {
protected:
  // A whole (not streamed) Messages response calling write_file with `input`, verbatim.
  void push_tool_use(const std::string& input) {
    FakeTurn call;
    call.fault = Fault::custom_error; // a 200 with this body verbatim
    call.status = 200;
    call.error_body = R"({"id":"msg_1","type":"message","role":"assistant","model":"test-model",)"
                      R"("content":[{"type":"text","text":"Writing it."},{"type":"tool_use",)"
                      R"("id":"toolu_1","name":"write_file","input":)" +
                      input +
                      R"(}],"stop_reason":"tool_use","usage":{"input_tokens":5,)"
                      R"("output_tokens":5}})";
    server.push(call);
    server.push(text_turn("Sorry, I will not do that."));
  }

  // Runs the goal and returns what the model was told of the call.
  std::string tool_result_told() {
    const auto result = run_ralph({"run", "--model", "anthropic/test-model", "--base-url",
                                   server.base_url(), "--workspace", workspace.path().string(),
                                   "--json", "--no-stream", "write a file"},
                                  cwd.path(), {{"ANTHROPIC_API_KEY", "sk-ant-test-key-1"}});
    EXPECT_EQ(result.exit_code, 0) << result.err.substr(0, 2000);
    EXPECT_THAT(result.err, Not(HasSubstr("internal error")));
    const auto out = json::parse(result.out);
    EXPECT_EQ(out["status"], "completed");
    EXPECT_EQ(out["answer"], "Sorry, I will not do that.");
    EXPECT_EQ(recorded_status(out["session_id"]), "completed");
    const auto requests = server.requests();
    EXPECT_EQ(requests.size(), 2u) << "one call, no retry";
    if (requests.size() < 2) {
      return {};
    }
    const auto told = json::parse(requests[1].body)["messages"].back()["content"].back();
    EXPECT_EQ(told["type"], "tool_result");
    EXPECT_EQ(told["is_error"], true);
    return told["content"].dump();
  }
};

TEST_F(HostileAnthropicBodyEndToEnd, InputNested100000DeepIsAToolErrorAndTheRunGoesOn) {
  constexpr std::size_t k_depth = 100'000;
  push_tool_use(R"({"path":)" + std::string(k_depth, '[') + std::string(k_depth, ']') + "}");
  EXPECT_THAT(tool_result_told(), HasSubstr("nested deeper than 512 levels"));
}

TEST_F(HostileAnthropicBodyEndToEnd, InputHoldingANumberNoDoubleHoldsIsAToolErrorAndTheRunGoesOn) {
  push_tool_use(R"({"path":"a.txt","content":1e999})");
  EXPECT_THAT(tool_result_told(), HasSubstr("number out of range"));
}

} // namespace
} // namespace ralph::testing
