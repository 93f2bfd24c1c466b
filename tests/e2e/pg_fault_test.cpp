// A PostgreSQL store that goes away during a run: a restart within store.retry_seconds is
// ridden out (the run finishes, its record complete); a server down for longer stops the run as
// `failed` naming the store, with everything committed before the fault kept.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/pg_cluster.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <future>
#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

class PgFaultEndToEnd : public ::testing::Test {
protected:
  void SetUp() override {
    RALPH_REQUIRE_PG(cluster);
    url = cluster.fresh_database();
    // The first model call writes add.sh at once; the second answers only once released, so
    // the test can take the server away between them.
    std::shared_future<void> released = m_release.get_future().share();
    agent.set_responder([released](const RecordedRequest& request) -> std::optional<FakeTurn> {
      if (request.body.find("created add.sh") == std::string::npos) {
        return tool_turn("write_file", {{"path", "add.sh"}, {"content", k_fixed_add}});
      }
      released.wait_for(std::chrono::seconds(120));
      return text_turn("Done.");
    });
  }
  void TearDown() override {
    release();
    agent.set_responder({});
  }
  void release() {
    if (!m_released) {
      m_released = true;
      m_release.set_value();
    }
  }
  std::vector<std::string> run_args(const std::string& retry_seconds) const {
    return {"run",
            "make add.sh add",
            "--model",
            "openai-compat/agent-model",
            "--base-url",
            agent.base_url() + "/v1",
            "--workspace",
            workspace.path().string(),
            "--json",
            "--store",
            url,
            "--verify-cmd",
            "sh test.sh",
            "--config",
            config_file(retry_seconds)};
  }
  std::string config_file(const std::string& retry_seconds) const {
    workspace.write("store.toml", "[store]\nretry_seconds = " + retry_seconds + "\n");
    return (workspace.path() / "store.toml").string();
  }
  json show(const std::string& id) const {
    const auto out =
        run_ralph({"sessions", "show", id, "--json", "--store", url}, workspace.path());
    EXPECT_EQ(out.exit_code, 0) << out.err;
    return json::parse(out.out);
  }

  PgCluster cluster; // a server of its own, to stop and start
  FakeProviderServer agent;
  TempDir workspace;
  std::string url;

private:
  std::promise<void> m_release;
  bool m_released = false;
};

TEST_F(PgFaultEndToEnd, ARestartDuringTheRunIsRiddenOutAndTheRecordIsComplete) {
  workspace.write("test.sh", k_test_script);
  RalphProcess process(run_args("30"), workspace.path());
  ASSERT_TRUE(eventually([&] { return agent.requests().size() == 2; }));
  cluster.halt(); // the run's connection is cut while the model thinks
  cluster.resume();
  release();
  const RalphOutput out = process.wait();
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = json::parse(out.out);
  EXPECT_EQ(result["status"], "completed");
  const auto record = show(result["session_id"]);
  EXPECT_EQ(record["status"], "completed");
  ASSERT_EQ(record["attempts"].size(), 1u);
  EXPECT_EQ(record["attempts"][0]["tool_calls"].size(), 1u);
  EXPECT_EQ(record["attempts"][0]["verdicts"][0]["result"], "pass");
  EXPECT_EQ(record["model_calls"].size(), 2u);
}

TEST_F(PgFaultEndToEnd, AServerDownPastTheRetryBoundFailsTheRunAndKeepsWhatWasCommitted) {
  workspace.write("test.sh", k_test_script);
  RalphProcess process(run_args("1"), workspace.path());
  ASSERT_TRUE(eventually([&] { return agent.requests().size() == 2; }));
  cluster.halt();
  release();
  const RalphOutput out = process.wait();
  EXPECT_EQ(out.exit_code, 1) << out.err; // failed
  const auto result = json::parse(out.out);
  EXPECT_EQ(result["status"], "failed");
  const std::string reason = result["reason"];
  EXPECT_THAT(reason, HasSubstr("the session record could not be written: " + url));
  EXPECT_THAT(reason, HasSubstr("(retried for 1.0 s)"));
  EXPECT_THAT(reason, HasSubstr("Connection refused")) << "says why, not only `not connected`";
  EXPECT_THAT(out.err, HasSubstr(url));

  cluster.resume();
  const auto record = show(result["session_id"]);
  // Everything up to the last committed step: the first model call and its tool call.
  ASSERT_EQ(record["attempts"].size(), 1u);
  EXPECT_EQ(record["attempts"][0]["finished"], false);
  ASSERT_EQ(record["attempts"][0]["tool_calls"].size(), 1u);
  EXPECT_EQ(record["attempts"][0]["tool_calls"][0]["name"], "write_file");
  EXPECT_EQ(record["model_calls"].size(), 1u);
}

} // namespace
} // namespace ralph::testing
