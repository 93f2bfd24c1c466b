// `[[notify]]` end to end: the real binary notifies a real HTTP receiver and a program when a
// run or a batch ends, signed, filtered by event, with no secret in what it sends or prints, and
// never waits at its end longer than the entry's timeout.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "notify/webhook_receiver.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* k_hmac_key = "hmac-key-not-to-be-seen-0123";
constexpr const char* k_provider_key = "sk-ant-provider-key-not-to-be-seen-42";

class NotifyEndToEnd : public ::testing::Test {
protected:
  // The workspace's configuration: a signed webhook for `events` and a program writing what it
  // reads to a file of the workspace's parent folder.
  void configure(const std::string& events, const std::string& extra = "") const {
    workspace.write(".ralph/config.toml",
                    "[[notify]]\nurl = \"" + receiver.url("/hook?token=q") + "\"\nevents = " +
                        events + "\nsecret_env = \"RALPH_TEST_HOOK_KEY\"\n" + extra +
                        "\n[[notify]]\ncommand = [\"sh\", \"-c\", \"cat >> \\\"$0\\\"; echo >> "
                        "\\\"$0\\\"\", \"" +
                        received_by_program().string() + "\"]\nevents = " + events + "\n");
  }
  fs::path received_by_program() const { return outside.path() / "program.ndjson"; }
  // What the program got, one body a line (it adds the newline).
  std::vector<json> program_lines() const {
    std::ifstream in(received_by_program());
    std::vector<json> lines;
    for (std::string line; std::getline(in, line);) {
      lines.push_back(json::parse(line));
    }
    return lines;
  }
  std::vector<std::string> run_args(const std::string& goal, std::vector<std::string> extra) const {
    std::vector<std::string> args{"run",         goal,
                                  "--model",     "anthropic/claude-test",
                                  "--base-url",  server.base_url(),
                                  "--workspace", workspace.path().string(),
                                  "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  std::map<std::string, std::string> env() const {
    return {{"ANTHROPIC_API_KEY", k_provider_key}, {"RALPH_TEST_HOOK_KEY", k_hmac_key}};
  }
  // Nothing ralph sent or printed holds a secret.
  void expect_no_secret(const RalphOutput& out) {
    for (const auto& got : receiver.received()) {
      EXPECT_THAT(got.body, Not(HasSubstr(k_hmac_key)));
      EXPECT_THAT(got.body, Not(HasSubstr(k_provider_key)));
    }
    for (const json& line : program_lines()) {
      EXPECT_THAT(line.dump(), Not(HasSubstr(k_provider_key)));
    }
    EXPECT_THAT(out.err, Not(HasSubstr(k_hmac_key)));
    EXPECT_THAT(out.err, Not(HasSubstr(k_provider_key)));
    EXPECT_THAT(out.out, Not(HasSubstr(k_provider_key)));
  }

  mutable WebhookReceiver receiver;
  FakeProviderServer server;
  TempDir workspace;
  TempDir outside;
};

TEST_F(NotifyEndToEnd, ACompletedRunIsPostedSignedAndGivenToTheProgram) {
  configure("[\"completed\", \"failed\"]");
  server.push(text_turn("Done: the key was " + std::string(k_provider_key)));
  const auto out =
      run_ralph(run_args("say the key " + std::string(k_provider_key), {}), outside.path(), env());
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const json result = parse_output(out);

  // The process waited for its deliveries before it ended.
  const auto got = receiver.received();
  ASSERT_EQ(got.size(), 1U) << out.err;
  const auto& request = got[0];
  EXPECT_EQ(request.path, "/hook");
  EXPECT_EQ(request.headers.at("x-ralph-event"), "completed");
  EXPECT_EQ(request.headers.at("x-ralph-signature-256"),
            "sha256=" + openssl_hmac_hex(k_hmac_key, request.headers.at("x-ralph-timestamp") + "." +
                                                         request.body));
  const json body = json::parse(request.body);
  EXPECT_EQ(body["event"], "completed");
  EXPECT_EQ(body["session"], result["session_id"]);
  EXPECT_EQ(body["status"], "completed");
  EXPECT_EQ(body["attempts"], 1);
  EXPECT_EQ(body["verified"], false);
  EXPECT_EQ(body["workspace"], workspace.path().string());
  EXPECT_THAT(body["goal"].get<std::string>(), HasSubstr("say the key"));
  EXPECT_GT(body["usage"]["input_tokens"].get<int>(), 0);
  EXPECT_TRUE(body["cost_usd"].is_null()); // no price for claude-test
  EXPECT_FALSE(body["time"].get<std::string>().empty());
  EXPECT_EQ(body.count("batch"), 0U);

  const auto lines = program_lines();
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(lines[0]["event"], "completed");
  EXPECT_EQ(lines[0]["session"], result["session_id"]);
  expect_no_secret(out);
}

TEST_F(NotifyEndToEnd, AFailedRunIsNotifiedOnlyToEntriesThatAskForFailures) {
  configure("[\"failed\"]");
  FakeTurn denied;
  denied.fault = Fault::http_401;
  server.push(denied);
  const auto failed = run_ralph(run_args("hello", {}), outside.path(), env());
  ASSERT_EQ(failed.exit_code, 1) << failed.err;
  ASSERT_EQ(receiver.received().size(), 1U) << failed.err;
  const json body = json::parse(receiver.received()[0].body);
  EXPECT_EQ(body["event"], "failed");
  EXPECT_EQ(body["status"], "failed");
  EXPECT_THAT(body["reason"].get<std::string>(), HasSubstr("401"));
  ASSERT_EQ(program_lines().size(), 1U);
  expect_no_secret(failed);

  // A completed run is not what these entries asked for.
  server.push(text_turn("Done."));
  const auto completed = run_ralph(run_args("hello", {}), outside.path(), env());
  ASSERT_EQ(completed.exit_code, 0) << completed.err;
  EXPECT_EQ(receiver.received().size(), 1U);
  EXPECT_EQ(program_lines().size(), 1U);
}

TEST_F(NotifyEndToEnd, AMissingSigningKeyIsAConfigErrorBeforeAnythingRuns) {
  configure("[\"completed\"]");
  const auto out =
      run_ralph(run_args("hello", {}), outside.path(), {{"ANTHROPIC_API_KEY", k_provider_key}});
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_THAT(out.err, HasSubstr((workspace.path() / ".ralph" / "config.toml").string() +
                                 ":1: notify.secret_env: RALPH_TEST_HOOK_KEY is not set"));
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(NotifyEndToEnd, AHangingReceiverDelaysTheEndByItsTimeoutAtMost) {
  configure("[\"completed\"]", "timeout = 1\n");
  for (int i = 0; i < 4; ++i) { // every try
    receiver.answer({.status = 200, .headers = {}, .hold = true});
  }
  server.push(text_turn("Done."));
  RalphProcess process(run_args("hello", {}), outside.path(), env());
  // The receiver holds the notification: the run has ended and is recorded by then.
  ASSERT_TRUE(receiver.wait_for(1));
  const auto held_from = std::chrono::steady_clock::now();
  const auto list = run_ralph({"sessions", "list", "--json"}, workspace.path());
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(json::parse(list.out)[0]["status"], "completed");
  const RalphOutput out = process.wait();
  // Ended while the receiver still holds the request: by the timeout, not the receiver.
  EXPECT_LT(std::chrono::steady_clock::now() - held_from, std::chrono::seconds(4));
  const std::size_t tries = receiver.received().size();
  receiver.release();
  EXPECT_EQ(out.exit_code, 0) << out.err << tries;
  EXPECT_EQ(parse_output(out)["status"], "completed");
  EXPECT_THAT(out.err, HasSubstr("did not get completed of session"));
  EXPECT_THAT(out.err, Not(HasSubstr("token=q")));
  expect_no_secret(out);
}

TEST_F(NotifyEndToEnd, AResumedSessionNotifiesWhereTheResumingProcessSays) {
  configure("[\"budget_exhausted\"]");
  server.push(text_turn("Done."));
  const auto first = run_ralph(
      run_args("make done.txt", {"--verify-cmd", "test -f done.txt", "--max-iterations", "1"}),
      outside.path(), env());
  ASSERT_EQ(first.exit_code, 3) << first.err;
  const std::string id = parse_output(first)["session_id"];
  ASSERT_EQ(receiver.received().size(), 1U);

  server.push(text_turn("Done again."));
  const auto resumed = run_ralph({"sessions", "resume", id, "--yes", "--max-iterations", "2"},
                                 workspace.path(), env());
  ASSERT_EQ(resumed.exit_code, 3) << resumed.err;
  const auto got = receiver.received();
  ASSERT_EQ(got.size(), 2U) << resumed.err;
  const json body = json::parse(got[1].body);
  EXPECT_EQ(body["event"], "budget_exhausted");
  EXPECT_EQ(body["session"], id);
  EXPECT_EQ(body["attempts"], 2);
  expect_no_secret(resumed);
}

TEST_F(NotifyEndToEnd, ABatchNotifiesEachGoalAndItsEnd) {
  configure("[\"completed\", \"failed\", \"batch_finished\"]");
  server.set_responder(
      [](const RecordedRequest&) { return std::optional<FakeTurn>(text_turn("Done.")); });
  const fs::path goals = outside.write(
      "goals.jsonl", "{\"id\": \"one\", \"goal\": \"first\"}\n{\"id\": \"two\", \"goal\": "
                     "\"second\"}\n");
  const auto out =
      run_ralph({"batch", goals.string(), "--model", "anthropic/claude-test", "--base-url",
                 server.base_url(), "--workspace", workspace.path().string(), "--concurrency", "1"},
                outside.path(), env());
  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  const auto got = receiver.received();
  ASSERT_EQ(got.size(), 3U) << out.err;
  std::vector<json> bodies;
  for (const auto& request : got) {
    bodies.push_back(json::parse(request.body));
    EXPECT_EQ(request.headers.at("x-ralph-event"), bodies.back()["event"]);
  }
  EXPECT_EQ(bodies[0]["event"], "completed");
  EXPECT_EQ(bodies[0]["batch"]["goal"], "one");
  EXPECT_EQ(bodies[1]["batch"]["goal"], "two");
  const std::string batch = bodies[0]["batch"]["id"];
  EXPECT_FALSE(batch.empty());
  EXPECT_EQ(bodies[1]["batch"]["id"], batch);
  const json& end = bodies[2];
  EXPECT_EQ(end["event"], "batch_finished");
  EXPECT_EQ(end["batch"]["id"], batch);
  EXPECT_EQ(end["goals"], 2);
  EXPECT_EQ(end["finished"], 2);
  EXPECT_EQ(end["statuses"]["completed"], 2);
  EXPECT_EQ(end["not_started"], 0);
  EXPECT_TRUE(end["budget"].is_null());
  EXPECT_EQ(program_lines().size(), 3U);
  expect_no_secret(out);
}

} // namespace
} // namespace ralph::testing
