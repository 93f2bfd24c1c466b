// `ralph batch` end to end: goals in their own worktrees, bad goal lines, kill -9 and resume,
// a batch budget running out, results.jsonl, and 200+ sessions in one process.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;
namespace fs = std::filesystem;

// The goal id a request works on: the goal text is "write ID.txt".
std::string goal_of(const RecordedRequest& request) {
  const json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.contains("messages")) {
    return {};
  }
  for (const json& message : body["messages"]) {
    if (message.value("role", "") != "user" || !message["content"].is_string()) {
      continue;
    }
    const std::string text = message["content"].get<std::string>();
    if (const auto at = text.find("write "); at != std::string::npos) {
      const auto end = text.find(".txt", at);
      return text.substr(at + 6, end - at - 6);
    }
  }
  return {};
}

// Whether the model has seen its tool's result already.
bool after_tool(const RecordedRequest& request) {
  const json body = json::parse(request.body, nullptr, false);
  return !body.is_discarded() && body.contains("messages") && !body["messages"].empty() &&
         body["messages"].back().value("role", "") == "tool";
}

// The fake model of every goal "write ID.txt": writes ID.txt, then says it is done. Counts the
// requests of each goal; the goals in `held` wait until release().
class GoalModel {
public:
  explicit GoalModel(FakeProviderServer& server, std::set<std::string> held = {},
                     std::chrono::milliseconds latency = {})
      : m_server(server), m_held(std::move(held)), m_gate(m_release.get_future().share()) {
    server.set_responder([this, latency](const RecordedRequest& request) {
      const std::string id = goal_of(request);
      {
        std::lock_guard lock(m_mutex);
        ++m_requests[id];
        ++m_answering;
      }
      m_seen.notify_all();
      if (m_held.count(id) != 0) {
        m_gate.wait_for(std::chrono::seconds(120));
      }
      FakeTurn turn = after_tool(request)
                          ? text_turn("Done.")
                          : tool_turn("write_file", {{"path", id + ".txt"}, {"content", id}});
      turn.first_byte_delay = latency;
      {
        // Notified under the lock: once it is released, nothing here touches `this` again.
        std::lock_guard lock(m_mutex);
        --m_answering;
        m_seen.notify_all();
      }
      return std::optional<FakeTurn>(turn);
    });
  }
  // A held answer may still be on its way out of the responder on a server thread: it must be
  // gone before the members it uses are.
  ~GoalModel() {
    release();
    m_server.set_responder({});
    std::unique_lock lock(m_mutex);
    m_seen.wait(lock, [this] { return m_answering == 0; });
  }
  GoalModel(const GoalModel&) = delete;
  GoalModel& operator=(const GoalModel&) = delete;

  void release() {
    std::call_once(m_released, [this] { m_release.set_value(); });
  }
  int requests(const std::string& id) {
    std::lock_guard lock(m_mutex);
    return m_requests[id];
  }
  // Blocks until goal `id` sent a request (30 s at most).
  bool wait_for(const std::string& id) {
    std::unique_lock lock(m_mutex);
    return m_seen.wait_for(lock, std::chrono::seconds(30), [&] { return m_requests[id] > 0; });
  }

private:
  FakeProviderServer& m_server;
  std::set<std::string> m_held;
  std::promise<void> m_release;
  std::shared_future<void> m_gate;
  std::once_flag m_released;
  std::mutex m_mutex;
  std::condition_variable m_seen;
  std::map<std::string, int> m_requests;
  int m_answering = 0; // responder calls in progress
};

std::vector<json> read_lines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<json> lines;
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(json::parse(line));
  }
  return lines;
}

// The one batch folder under .ralph/batch of `workspace`.
fs::path batch_dir(const fs::path& workspace) {
  for (const auto& entry : fs::directory_iterator(workspace / ".ralph" / "batch")) {
    return entry.path();
  }
  return {};
}

class BatchEndToEnd : public ::testing::Test {
protected:
  void make_git_repo() const {
    workspace.write("README.md", "the source\n");
    const std::string dir = workspace.path().string();
    ASSERT_EQ(std::system(("cd " + dir +
                           " && git init -q . && git -c user.email=t@t -c user.name=t add -A && "
                           "git -c user.email=t@t -c user.name=t commit -qm start")
                              .c_str()),
              0);
  }
  // A goals file of goals "write ID.txt", verified by `test -f ID.txt`.
  fs::path goals_file(const std::vector<std::string>& ids, const std::string& name = "goals.jsonl",
                      const std::string& extra = "") const {
    std::string text = "# goals\n\n";
    for (const std::string& id : ids) {
      text +=
          json{{"id", id}, {"goal", "write " + id + ".txt"}, {"verify", "test -f " + id + ".txt"}}
              .dump();
      text.insert(text.size() - 1, extra);
      text += "\n";
    }
    return goals_dir.write(name, text);
  }
  std::vector<std::string> args(const fs::path& goals, std::vector<std::string> extra = {}) const {
    std::vector<std::string> all{"batch",       goals.string(),
                                 "--model",     "openai-compat/agent-model",
                                 "--base-url",  server.base_url() + "/v1",
                                 "--workspace", workspace.path().string()};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  RalphOutput batch(const fs::path& goals, std::vector<std::string> extra = {}) const {
    return run_ralph(args(goals, std::move(extra)), workspace.path());
  }

  // A thread per kept-alive connection: the engine keeps its connections open between turns, as
  // any HTTP client does, and a batch holds up to --concurrency of them.
  mutable FakeProviderServer server{72};
  TempDir workspace;
  TempDir goals_dir; // outside the workspace, as a backlog file would be
};

TEST_F(BatchEndToEnd, EachGoalWorksInItsOwnWorktreeAndItsResultIsALine) {
  make_git_repo();
  GoalModel model(server);
  const fs::path goals = goals_file({"alpha", "beta", "gamma"});
  const fs::path events = workspace.path() / "events.ndjson";
  const auto out = batch(goals, {"--concurrency", "3", "--events", events.string()});
  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  EXPECT_THAT(out.out, HasSubstr("completed"));
  EXPECT_THAT(out.out, HasSubstr("(100% of finished goals)"));

  const fs::path dir = batch_dir(workspace.path());
  const auto results = read_lines(dir / "results.jsonl");
  ASSERT_EQ(results.size(), 3u);
  std::set<std::string> sessions;
  for (const json& result : results) {
    const std::string id = result["id"];
    EXPECT_EQ(result["status"], "completed") << result.dump();
    EXPECT_EQ(result["verified"], true);
    EXPECT_EQ(result["iterations"], 1);
    EXPECT_EQ(result["verdicts"][0]["verifier"], "command: test -f " + id + ".txt");
    EXPECT_GT(result["usage"]["input_tokens"].get<int>(), 0);
    EXPECT_EQ(result["branch"], "ralph/batch/" + dir.filename().string() + "/" + id);
    EXPECT_EQ(fs::path(result["workspace"].get<std::string>()), dir / id);
    sessions.insert(result["session_id"].get<std::string>());
    // Its own file in its own worktree, on its own branch; nobody else's.
    const fs::path own = dir / id;
    EXPECT_TRUE(fs::exists(own / (id + ".txt")));
    EXPECT_TRUE(fs::exists(own / "README.md"));
    for (const std::string other : {"alpha", "beta", "gamma"}) {
      EXPECT_EQ(fs::exists(own / (other + ".txt")), other == id) << own << " " << other;
      EXPECT_FALSE(fs::exists(workspace.path() / (other + ".txt")));
    }
    EXPECT_EQ(model.requests(id), 2);
  }
  EXPECT_EQ(sessions.size(), 3u);
  // Every session's events in the one file, each line with its session.
  std::set<std::string> seen;
  for (const json& line : read_lines(events)) {
    seen.insert(line["session"].get<std::string>());
  }
  EXPECT_EQ(seen, sessions);
  // The sessions are in the workspace's store like any run.
  const auto list = run_ralph({"sessions", "list", "--json"}, workspace.path());
  EXPECT_EQ(json::parse(list.out).size(), 3u);

  // Run again: nothing left to do, nothing sent.
  const auto again = batch(goals, {"--json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const json summary = json::parse(again.out);
  EXPECT_EQ(summary["finished"], 3);
  EXPECT_EQ(summary["statuses"]["completed"], 3);
  EXPECT_EQ(summary["verified_rate"], 1.0);
  EXPECT_EQ(model.requests("alpha"), 2);
  EXPECT_EQ(read_lines(dir / "results.jsonl").size(), 3u);
}

TEST_F(BatchEndToEnd, WithoutGitEachGoalWorksInACopy) {
  workspace.write("data.txt", "shared\n");
  GoalModel model(server);
  const auto out = batch(goals_file({"one", "two"}), {"--json"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const fs::path dir = batch_dir(workspace.path());
  EXPECT_TRUE(fs::exists(dir / "one" / "one.txt"));
  EXPECT_FALSE(fs::exists(dir / "one" / "two.txt"));
  EXPECT_TRUE(fs::exists(dir / "two" / "data.txt"));
  EXPECT_FALSE(fs::exists(workspace.path() / "one.txt"));
  EXPECT_EQ(read_lines(dir / "results.jsonl")[0].count("branch"), 0u);
}

TEST_F(BatchEndToEnd, EveryBadLineIsReportedWithItsNumberAndNothingRuns) {
  const fs::path goals =
      goals_dir.write("bad.jsonl",
                      "{\"id\": \"ok\", \"goal\": \"write ok.txt\"}\n"                      // 1
                      "not json\n"                                                          // 2
                      "[1, 2]\n"                                                            // 3
                      "{\"goal\": \"no id\"}\n"                                             // 4
                      "{\"id\": \"ok\", \"goal\": \"again\"}\n"                             // 5
                      "{\"id\": \"typo\", \"goal\": \"x\", \"verfy\": \"true\"}\n"          // 6
                      "{\"id\": \"many\", \"goal\": \"x\", \"max_iterations\": \"lots\"}\n" // 7
                      "# a comment\n"                                                       // 8
                      "{\"id\": \"no goal\"}\n"                                             // 9
                      "{\"id\": \"k\", \"goal\": \"x\", \"loop.feedbak\": \"append\"}\n");  // 10
  const auto out = batch(goals);
  EXPECT_EQ(out.exit_code, 2) << out.err;
  const std::string file = goals.string();
  EXPECT_THAT(out.err, HasSubstr(file + ":2: not JSON"));
  EXPECT_THAT(out.err, HasSubstr(file + ":3: a goal is a JSON object"));
  EXPECT_THAT(out.err, HasSubstr(file + ":4: 'id' is missing"));
  EXPECT_THAT(out.err, HasSubstr(file + ":5: id 'ok' is used already on line 1"));
  EXPECT_THAT(out.err, HasSubstr(file + ":6: unknown key 'verfy'; did you mean 'verify'?"));
  EXPECT_THAT(out.err, HasSubstr(file + ":7: 'max_iterations' lots: expected"));
  EXPECT_THAT(out.err, HasSubstr(file + ":9: id 'no goal': use letters"));
  EXPECT_THAT(out.err, HasSubstr(file + ":9: 'goal' is missing"));
  EXPECT_THAT(out.err, HasSubstr(file + ":10: unknown key 'loop.feedbak'; did you mean"));
  EXPECT_THAT(out.err, HasSubstr("9 problem(s)"));
  EXPECT_THAT(out.err, Not(HasSubstr(":1:")));
  EXPECT_THAT(out.err, Not(HasSubstr(":8:")));
  EXPECT_TRUE(server.requests().empty());
  EXPECT_FALSE(fs::exists(workspace.path() / ".ralph" / "batch"));
}

TEST_F(BatchEndToEnd, KilledMidBatchTheRerunSkipsFinishedGoalsAndResumesTheOthers) {
  make_git_repo();
  GoalModel model(server, {"slow1", "slow2"});
  const fs::path goals = goals_file({"fast1", "slow1", "fast2", "slow2"});
  {
    RalphProcess process(args(goals, {"--concurrency", "4"}), workspace.path());
    ASSERT_TRUE(model.wait_for("slow1"));
    ASSERT_TRUE(model.wait_for("slow2"));
    // Both fast goals finished and their results are written.
    ASSERT_TRUE(eventually([&] {
      const fs::path dir = fs::exists(workspace.path() / ".ralph" / "batch")
                               ? batch_dir(workspace.path())
                               : fs::path();
      return !dir.empty() && read_lines(dir / "results.jsonl").size() == 2;
    }));
    process.signal(SIGKILL);
    EXPECT_EQ(process.wait().exit_code, 128 + SIGKILL);
  }
  const fs::path dir = batch_dir(workspace.path());
  std::map<std::string, std::string> first_sessions;
  for (const json& line : read_lines(dir / "state.jsonl")) {
    first_sessions.emplace(line["id"], line["session"]);
  }
  EXPECT_EQ(model.requests("fast1"), 2);
  EXPECT_EQ(model.requests("slow1"), 1);

  model.release();
  const auto out = batch(goals, {"--json"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  // The finished goals were not run again; the others went on in their sessions and worktrees.
  EXPECT_EQ(model.requests("fast1"), 2);
  EXPECT_EQ(model.requests("fast2"), 2);
  EXPECT_GE(model.requests("slow1"), 2);
  const auto results = read_lines(dir / "results.jsonl");
  ASSERT_EQ(results.size(), 4u);
  std::set<std::string> ids;
  for (const json& result : results) {
    ids.insert(result["id"].get<std::string>());
    EXPECT_EQ(result["status"], "completed") << result.dump();
    EXPECT_EQ(result["session_id"], first_sessions[result["id"]]);
  }
  EXPECT_EQ(ids.size(), 4u);
  EXPECT_TRUE(fs::exists(dir / "slow1" / "slow1.txt"));
  const json record = show_session(first_sessions["slow2"], workspace.path());
  EXPECT_EQ(record["status"], "completed");
  EXPECT_EQ(record["workspace"], (dir / "slow2").string());
}

TEST_F(BatchEndToEnd, ABatchTokenBudgetStopsTheRunningGoalAndStartsNoOther) {
  GoalModel model(server);
  // What one goal spends, measured by a batch of its own.
  const auto alone = batch(goals_file({"solo"}, "solo.jsonl"), {"--json"});
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  const std::int64_t one_goal = json::parse(alone.out)["tokens"];
  ASSERT_GT(one_goal, 0);

  const fs::path goals = goals_file({"g1", "g2", "g3"});
  const auto out = batch(
      goals, {"--concurrency", "1", "--batch-token-budget", std::to_string(one_goal * 3 / 2)});
  EXPECT_EQ(out.exit_code, 3) << out.err << out.out;
  EXPECT_THAT(out.out, HasSubstr("the batch's token budget ran out"));
  EXPECT_THAT(out.out, HasSubstr("unfinished"));
  EXPECT_THAT(out.out, HasSubstr("not started"));
  const fs::path dir = workspace.path() / ".ralph" / "batch";
  fs::path g_dir;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().starts_with("goals-")) {
      g_dir = entry.path();
    }
  }
  const auto results = read_lines(g_dir / "results.jsonl");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["id"], "g1");
  EXPECT_GE(model.requests("g2"), 1);
  EXPECT_EQ(model.requests("g3"), 0);

  // A larger budget: the stopped goal goes on, the last one starts.
  const auto more = batch(goals, {"--json", "--batch-token-budget", "10M"});
  ASSERT_EQ(more.exit_code, 0) << more.err;
  EXPECT_EQ(read_lines(g_dir / "results.jsonl").size(), 3u);
  EXPECT_EQ(model.requests("g3"), 2);
}

TEST_F(BatchEndToEnd, ABatchTimeBudgetStopsAGoalThatRunsOnAndStartsNoOther) {
  // g1 finishes (well within the budget, even under ASan on a loaded machine); g2's model never
  // answers until the test ends, so only the batch's time budget can end the run; g3 would
  // start after g2.
  GoalModel model(server, {"g2"});
  const fs::path goals = goals_file({"g1", "g2", "g3"});
  const auto out = batch(goals, {"--concurrency", "1", "--batch-time-budget", "6s"});
  EXPECT_EQ(out.exit_code, 3) << out.err << out.out;
  EXPECT_THAT(out.out, HasSubstr("the batch's time budget ran out"));
  EXPECT_GE(model.requests("g2"), 1);
  EXPECT_EQ(model.requests("g3"), 0);
  const auto results = read_lines(batch_dir(workspace.path()) / "results.jsonl");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["id"], "g1");
}

TEST_F(BatchEndToEnd, TwoHundredSessionsRunInOneProcess) {
  GoalModel model(server, {}, std::chrono::milliseconds(50));
  std::vector<std::string> ids;
  for (int i = 0; i < 220; ++i) {
    ids.push_back("g" + std::to_string(i));
  }
  const auto out = batch(goals_file(ids), {"--concurrency", "64", "--json"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const json summary = json::parse(out.out);
  EXPECT_EQ(summary["statuses"]["completed"], 220);
  EXPECT_EQ(summary["verified"], 220);
  const auto results = read_lines(batch_dir(workspace.path()) / "results.jsonl");
  EXPECT_EQ(results.size(), 220u);
  EXPECT_EQ(server.requests().size(), 440u);
}

} // namespace
} // namespace ralph::testing

namespace ralph::testing {
namespace {

TEST_F(BatchEndToEnd, OnATerminalTheLiveDisplayShowsCountsAndTheSlowestGoals) {
  GoalModel model(server, {"held"});
  const fs::path goals = goals_file({"quick", "held"});
  RalphProcess process(args(goals, {"--concurrency", "2"}), workspace.path(), {},
                       Streams::terminal);
  ASSERT_TRUE(
      process.read_until("1/2 done · 1 running · 0 failed · 1 verified", std::chrono::seconds(30)))
      << process.live();
  ASSERT_TRUE(process.read_until("slowest: held", std::chrono::seconds(30))) << process.live();
  EXPECT_THAT(process.live(), HasSubstr("[1/2] quick completed, verified"));
  model.release();
  const auto out = process.wait();
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.err, HasSubstr("[2/2] held completed, verified"));
}

TEST_F(BatchEndToEnd, CtrlCStopsTheRunningGoalsAsInterruptedAndTheRerunFinishesThem) {
  GoalModel model(server, {"held"});
  const fs::path goals = goals_file({"quick", "held"});
  {
    RalphProcess process(args(goals, {"--concurrency", "2"}), workspace.path());
    ASSERT_TRUE(model.wait_for("held"));
    ASSERT_TRUE(eventually([&] {
      return fs::exists(workspace.path() / ".ralph" / "batch") &&
             read_lines(batch_dir(workspace.path()) / "results.jsonl").size() == 1;
    }));
    process.signal(SIGINT);
    const auto out = process.wait();
    EXPECT_EQ(out.exit_code, 130) << out.err;
    EXPECT_THAT(out.out, HasSubstr("interrupted: run the same command again"));
    EXPECT_THAT(out.out, HasSubstr("unfinished"));
  }
  model.release();
  const auto out = batch(goals, {"--json"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(json::parse(out.out)["statuses"]["completed"], 2);
  EXPECT_EQ(model.requests("quick"), 2);
}

} // namespace
} // namespace ralph::testing

namespace ralph::testing {
namespace {

TEST_F(BatchEndToEnd, ARepoUrlIsClonedOnceAndAnExternalAgentWorksInEachWorktree) {
  make_git_repo();
  TempDir upstream;
  upstream.write("lib.txt", "upstream\n");
  ASSERT_EQ(std::system(("cd " + upstream.path().string() +
                         " && git init -q . && git -c user.email=t@t -c user.name=t add -A && "
                         "git -c user.email=t@t -c user.name=t commit -qm lib")
                            .c_str()),
            0);
  const std::string url = "file://" + upstream.path().string();
  const fs::path goals = goals_dir.write(
      "agents.jsonl",
      json{{"id", "u1"}, {"goal", "g"}, {"repo", url}, {"ref", "HEAD"}, {"verify", "test -f done"}}
              .dump() +
          "\n" +
          json{{"id", "u2"}, {"goal", "g"}, {"repo", url}, {"verify", "test -f done"}}.dump() +
          "\n" + json{{"id", "local"}, {"goal", "g"}, {"verify", "test -f done"}}.dump() + "\n");
  const auto out = run_ralph({"batch", goals.string(), "--agent-cmd", "touch done && echo Done.",
                              "--workspace", workspace.path().string(), "--json"},
                             workspace.path());
  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  const fs::path dir = batch_dir(workspace.path());
  EXPECT_TRUE(fs::exists(dir / "u1" / "lib.txt"));
  EXPECT_TRUE(fs::exists(dir / "u2" / "done"));
  EXPECT_TRUE(fs::exists(dir / "local" / "README.md"));
  EXPECT_FALSE(fs::exists(dir / "local" / "lib.txt"));
  EXPECT_FALSE(fs::exists(upstream.path() / "done"));
  EXPECT_FALSE(fs::exists(workspace.path() / "done"));
  int clones = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir / "repos")) {
    ++clones;
  }
  EXPECT_EQ(clones, 1);
  EXPECT_TRUE(server.requests().empty());
}

} // namespace
} // namespace ralph::testing
