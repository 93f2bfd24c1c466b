// `ralph heartbeat` end to end: ticks on HEARTBEAT.md against fake servers for the agent and the
// judge, the tick lock between real processes, --every, and `sessions list --heartbeat`.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;
using std::chrono::seconds;

constexpr const char* k_due_tasks =
    "# Heartbeat\n- Every check-in: append the line `checked` to status.log.\n";
constexpr const char* k_nothing_due =
    "# Heartbeat\n- On 1 January only: send the yearly report (skip on any other day).\n";

class HeartbeatEndToEnd : public ::testing::Test {
protected:
  std::vector<std::string> args(std::vector<std::string> extra) const {
    std::vector<std::string> all{"heartbeat",
                                 "--model",
                                 "openai-compat/agent-model",
                                 "--base-url",
                                 agent.base_url() + "/v1",
                                 "--workspace",
                                 workspace.path().string(),
                                 "--json"};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  std::vector<std::string> judged(std::vector<std::string> extra = {}) const {
    std::vector<std::string> all =
        args({"--judge", "anthropic/judge-model", "--judge-base-url", judge.base_url()});
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  RalphOutput ralph(const std::vector<std::string>& args) const {
    return run_ralph(args, workspace.path(), {{"ANTHROPIC_API_KEY", "sk-ant-test-key"}});
  }
  json heartbeat_list() const {
    const auto out = ralph({"sessions", "list", "--heartbeat", "--json"});
    EXPECT_EQ(out.exit_code, 0) << out.err;
    return parse_output(out);
  }

  FakeProviderServer agent;
  FakeProviderServer judge;
  TempDir workspace;
};

TEST_F(HeartbeatEndToEnd, ALazyHeartbeatOkWithATaskDueIsJudgedAndRetried) {
  workspace.write("HEARTBEAT.md", k_due_tasks);
  agent.push(text_turn("HEARTBEAT_OK"));
  judge.push(text_turn("FAIL [goal_missed]: HEARTBEAT.md says every check-in appends `checked` "
                       "to status.log; nothing was written"));
  agent.push(tool_turn("write_file", {{"path", "status.log"}, {"content", "checked\n"}}));
  agent.push(text_turn("Appended `checked` to status.log."));
  judge.push(text_turn("PASS"));

  const auto out = ralph(judged());
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const json result = parse_output(out);
  EXPECT_EQ(result["status"], "completed");
  EXPECT_EQ(result["iterations"], 2);
  EXPECT_TRUE(result["verified"]);
  EXPECT_EQ(workspace.read("status.log"), "checked\n");

  // The judge saw the tasks, and the agent was told why its first answer failed.
  ASSERT_EQ(judge.requests().size(), 2u);
  EXPECT_THAT(judge.requests()[0].body, HasSubstr("append the line `checked` to status.log"));
  EXPECT_THAT(agent.requests().at(1).body, HasSubstr("goal_missed"));
  // The goal quotes HEARTBEAT.md and asks for exactly HEARTBEAT_OK when nothing is due.
  const json first = json::parse(agent.requests()[0].body);
  EXPECT_THAT(first.dump(), HasSubstr("answer exactly HEARTBEAT_OK"));

  const json shown = show_session(result["session_id"], workspace.path());
  EXPECT_EQ(shown["kind"], "heartbeat");
  EXPECT_EQ(shown["attempts"].size(), 2u);
}

TEST_F(HeartbeatEndToEnd, HeartbeatOkWithNothingDueIsAcceptedAtOnce) {
  workspace.write("HEARTBEAT.md", k_nothing_due);
  agent.push(text_turn("HEARTBEAT_OK"));
  judge.push(text_turn("Nothing in HEARTBEAT.md is due today.\nPASS"));

  const auto out = ralph(judged());
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const json result = parse_output(out);
  EXPECT_EQ(result["iterations"], 1);
  EXPECT_TRUE(result["verified"]);
  EXPECT_EQ(result["answer"], "HEARTBEAT_OK");
  EXPECT_EQ(agent.requests().size(), 1u);
  ASSERT_EQ(judge.requests().size(), 1u);
  EXPECT_THAT(judge.requests()[0].body, HasSubstr("send the yearly report"));
}

TEST_F(HeartbeatEndToEnd, VerificationNeedsAJudgeUnlessTurnedOff) {
  workspace.write("HEARTBEAT.md", k_nothing_due);
  const auto refused = ralph(args({}));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("heartbeat verification needs a judge: pass --judge"));
  EXPECT_TRUE(agent.requests().empty());

  agent.push(text_turn("HEARTBEAT_OK"));
  const auto off = ralph(args({"--verify-heartbeat=false"}));
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_FALSE(parse_output(off)["verified"]);
  // The same from the configuration: a file says false, the flag's default does not override it.
  workspace.write(".ralph/config.toml", "[loop]\nverify_heartbeat = false\n");
  agent.push(text_turn("HEARTBEAT_OK"));
  EXPECT_EQ(ralph(args({})).exit_code, 0);
}

TEST_F(HeartbeatEndToEnd, ATickFindingAnotherRunningSkipsOrWaits) {
  workspace.write("HEARTBEAT.md", k_nothing_due);
  HeldAnswers answers(agent, "HEARTBEAT_OK");
  RalphProcess first(args({"--no-verify-heartbeat"}), workspace.path());
  ASSERT_TRUE(agent.wait_for_requests(1, seconds(60))) << "the first tick reached its model";

  const auto skipped = ralph(args({"--no-verify-heartbeat"}));
  EXPECT_EQ(skipped.exit_code, 0) << skipped.err;
  EXPECT_THAT(skipped.err, HasSubstr("skipped: a tick is still running in process " +
                                     std::to_string(first.pid())));
  EXPECT_EQ(parse_output(skipped)["status"], "skipped");
  EXPECT_EQ(agent.requests().size(), 1u) << "the skipped tick called no model";

  RalphProcess waiting(args({"--no-verify-heartbeat", "--wait"}), workspace.path(), {},
                       Streams::stderr_pipe);
  ASSERT_TRUE(waiting.read_until("waiting: a tick is still running in process", seconds(60)))
      << waiting.live();
  EXPECT_EQ(agent.requests().size(), 1u) << "the waiting tick has not started";
  answers.release();
  const RalphOutput first_out = first.wait();
  EXPECT_EQ(first_out.exit_code, 0) << first_out.err;
  const RalphOutput waited = waiting.wait();
  EXPECT_EQ(waited.exit_code, 0) << waited.err;
  EXPECT_THAT(waited.err, HasSubstr("this one starts"));
  EXPECT_EQ(agent.requests().size(), 2u);

  const json list = heartbeat_list();
  EXPECT_EQ(list["total"]["ticks"], 2) << "the skipped tick is no session";
}

TEST_F(HeartbeatEndToEnd, EveryRunsTheGivenNumberOfTicksEachASession) {
  workspace.write("HEARTBEAT.md", k_nothing_due);
  for (int i = 0; i < 3; ++i) {
    agent.push(text_turn("HEARTBEAT_OK"));
  }
  const auto events = workspace.path() / "events.ndjson";
  workspace.write("events.ndjson", "{\"kept\": true}\n");
  const auto out = ralph(args(
      {"--no-verify-heartbeat", "--every", "0.2s", "--ticks", "3", "--events", events.string()}));
  ASSERT_EQ(out.exit_code, 0) << out.err;
  // --events gathers every tick (appended, each line with its tick's session).
  std::set<std::string> sessions;
  std::istringstream event_lines(workspace.read("events.ndjson"));
  std::string event;
  std::getline(event_lines, event);
  EXPECT_EQ(event, "{\"kept\": true}");
  while (std::getline(event_lines, event)) {
    sessions.insert(json::parse(event)["session"].get<std::string>());
  }
  EXPECT_EQ(sessions.size(), 3u);
  EXPECT_THAT(out.err, HasSubstr("heartbeat tick 1 of 3"));
  EXPECT_THAT(out.err, HasSubstr("heartbeat tick 3 of 3"));
  EXPECT_THAT(out.err, HasSubstr("next tick at "));
  // One JSON result per tick on stdout.
  std::istringstream lines(out.out);
  std::string line;
  int results = 0;
  while (std::getline(lines, line)) {
    EXPECT_EQ(json::parse(line)["answer"], "HEARTBEAT_OK");
    ++results;
  }
  EXPECT_EQ(results, 3);

  const json list = heartbeat_list();
  ASSERT_EQ(list["ticks"].size(), 3u);
  EXPECT_EQ(list["total"],
            json({{"ticks", 3}, {"verified", 0}, {"unverified", 3}, {"not_completed", 0}}));
  const auto text = ralph({"sessions", "list", "--heartbeat"});
  EXPECT_THAT(text.out, HasSubstr("3 ticks: 0 verified, 3 completed unverified, 0 not completed"));
  EXPECT_THAT(text.out, HasSubstr("HEARTBEAT_OK"));
  // Plain `sessions list` marks them.
  EXPECT_THAT(ralph({"sessions", "list"}).out, HasSubstr("[heartbeat] Heartbeat:"));
}

TEST_F(HeartbeatEndToEnd, QuietSaysNothingBetweenTicks) {
  workspace.write("HEARTBEAT.md", k_nothing_due);
  for (int i = 0; i < 2; ++i) {
    agent.push(text_turn("HEARTBEAT_OK"));
  }
  const auto out =
      ralph(args({"--no-verify-heartbeat", "--every", "0.2s", "--ticks", "2", "--quiet"}));
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(agent.requests().size(), 2u);
  EXPECT_EQ(out.err, "");
}

TEST_F(HeartbeatEndToEnd, ATickLongerThanTheIntervalSkipsTheMissedSlotsAndSaysSo) {
  workspace.write("HEARTBEAT.md", k_nothing_due);
  FakeTurn slow = text_turn("HEARTBEAT_OK");
  slow.first_byte_delay = std::chrono::milliseconds(500); // the tick outlasts --every for sure
  agent.push(slow);
  agent.push(text_turn("HEARTBEAT_OK"));
  const auto out = ralph(args({"--no-verify-heartbeat", "--every", "0.1s", "--ticks", "2"}));
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.err, HasSubstr("longer than --every 0.1 s: skipped "));
  EXPECT_EQ(heartbeat_list()["total"]["ticks"], 2);
}

TEST_F(HeartbeatEndToEnd, CtrlCBetweenTicksStopsWithExit130) {
  workspace.write("HEARTBEAT.md", k_nothing_due);
  agent.push(text_turn("HEARTBEAT_OK"));
  RalphProcess process(args({"--no-verify-heartbeat", "--every", "1h"}), workspace.path(), {},
                       Streams::stderr_pipe);
  ASSERT_TRUE(process.read_until("next tick at", seconds(60))) << process.live();
  process.signal(SIGINT);
  const RalphOutput out = process.wait();
  EXPECT_EQ(out.exit_code, 130) << out.err;
  EXPECT_THAT(out.err, HasSubstr("interrupted after 1 tick(s); stopped"));
  EXPECT_EQ(heartbeat_list()["total"]["ticks"], 1);
}

TEST_F(HeartbeatEndToEnd, CtrlCDuringATickRecordsItInterrupted) {
  workspace.write("HEARTBEAT.md", k_nothing_due);
  HeldAnswers answers(agent, "HEARTBEAT_OK");
  RalphProcess process(args({"--no-verify-heartbeat", "--every", "1h"}), workspace.path());
  ASSERT_TRUE(agent.wait_for_requests(1, seconds(60)));
  process.signal(SIGINT);
  const RalphOutput out = process.wait();
  EXPECT_EQ(out.exit_code, 130) << out.err;
  EXPECT_THAT(out.err, HasSubstr("interrupted during tick 1; stopped"));
  const json list = heartbeat_list();
  ASSERT_EQ(list["ticks"].size(), 1u);
  EXPECT_EQ(list["ticks"][0]["status"], "interrupted");
}

TEST_F(HeartbeatEndToEnd, AMissingOrEmptyTaskFileOrABadIntervalIsAUsageError) {
  const auto missing = ralph(judged());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err,
              HasSubstr((workspace.path() / "HEARTBEAT.md").string() + ": no such file"));
  std::filesystem::create_directory(workspace.path() / "HEARTBEAT.md");
  EXPECT_THAT(ralph(judged()).err, HasSubstr("HEARTBEAT.md is a folder, not the tasks file"));
  std::filesystem::remove(workspace.path() / "HEARTBEAT.md");
  workspace.write("HEARTBEAT.md", "  \n\n");
  const auto empty = ralph(judged());
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_THAT(empty.err, HasSubstr("HEARTBEAT.md is empty"));
  workspace.write("HEARTBEAT.md", k_nothing_due);
  const auto bad = ralph(judged({"--every", "often"}));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--every 'often': expected a duration"));
  EXPECT_TRUE(agent.requests().empty());
  EXPECT_TRUE(heartbeat_list()["ticks"].empty());
}

} // namespace
} // namespace ralph::testing
