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

} // namespace
} // namespace ralph::testing
