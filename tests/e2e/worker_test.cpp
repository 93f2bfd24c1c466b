// `ralph batch --queue` and `ralph worker` end to end, against a real PostgreSQL server and the
// fake provider server: enqueueing twice queues once, a SIGKILLed worker's goal is taken over and
// resumed by another, a PostgreSQL restart mid-batch, and 1000 goals through three workers.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/pg_cluster.h"
#include "support/temp_dir.h"

#include "ralph/store/goal_queue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;
namespace fs = std::filesystem;

// The goal id a request works on: the goal text is "write ID.txt".
std::string goal_of(const RecordedRequest& request) {
  const json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.contains("messages")) {
    return {};
  }
  for (const json& message : body["messages"]) {
    if (message.value("role", "") == "user" && message["content"].is_string()) {
      const std::string text = message["content"].get<std::string>();
      if (const auto at = text.find("write "); at != std::string::npos) {
        return text.substr(at + 6, text.find(".txt", at) - at - 6);
      }
    }
  }
  return {};
}

bool after_tool(const RecordedRequest& request) {
  const json body = json::parse(request.body, nullptr, false);
  return !body.is_discarded() && body.contains("messages") && !body["messages"].empty() &&
         body["messages"].back().value("role", "") == "tool";
}

// The model of every goal "write ID.txt": writes ID.txt, then says it is done. The second
// request of the goals in `held` (after the file is written and its model call recorded) waits
// until release().
class QueueModel {
public:
  explicit QueueModel(FakeProviderServer& server, std::set<std::string> held = {})
      : m_server(server), m_held(std::move(held)), m_gate(m_release.get_future().share()) {
    server.set_responder([this](const RecordedRequest& request) {
      const std::string id = goal_of(request);
      const bool second = after_tool(request);
      {
        std::lock_guard lock(m_mutex);
        ++m_requests[id];
        ++m_answering;
        m_held_now += static_cast<int>(second && m_held.count(id) != 0);
      }
      m_seen.notify_all();
      if (second && m_held.count(id) != 0) {
        m_gate.wait_for(std::chrono::seconds(120));
      }
      const FakeTurn turn = second
                                ? text_turn("Done.")
                                : tool_turn("write_file", {{"path", id + ".txt"}, {"content", id}});
      std::lock_guard lock(m_mutex);
      --m_answering;
      m_seen.notify_all();
      return std::optional<FakeTurn>(turn);
    });
  }
  ~QueueModel() {
    release();
    m_server.set_responder({});
    std::unique_lock lock(m_mutex);
    m_seen.wait(lock, [this] { return m_answering == 0; });
  }
  QueueModel(const QueueModel&) = delete;
  QueueModel& operator=(const QueueModel&) = delete;

  void release() {
    std::call_once(m_released, [this] { m_release.set_value(); });
  }
  int requests(const std::string& id) {
    std::lock_guard lock(m_mutex);
    return m_requests[id];
  }
  // Blocks until a held request arrived (60 s at most).
  bool wait_for_held() {
    std::unique_lock lock(m_mutex);
    return m_seen.wait_for(lock, std::chrono::seconds(60), [&] { return m_held_now > 0; });
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
  int m_answering = 0;
  int m_held_now = 0;
};

std::int64_t tokens_of(const json& usage) {
  return usage["input_tokens"].get<std::int64_t>() + usage["output_tokens"].get<std::int64_t>();
}

// Every model call the record holds, summed: the session's spend is all of its runs'.
std::int64_t goal_tokens(const json& record) {
  std::int64_t total = 0;
  for (const json& call : record["model_calls"]) {
    total += tokens_of(call["usage"]);
  }
  return total;
}

class WorkerEndToEnd : public ::testing::Test {
protected:
  fs::path goals_file(const std::vector<std::string>& ids) const {
    std::string text;
    for (const std::string& id : ids) {
      text += json{{"id", id}, {"goal", "write " + id + ".txt"}}.dump() + "\n";
    }
    return dir.write("goals.jsonl", text);
  }
  RalphOutput enqueue(const std::string& url, const fs::path& goals,
                      std::vector<std::string> extra = {}) const {
    std::vector<std::string> args{"batch",      goals.string(),
                                  "--queue",    url,
                                  "--name",     "b",
                                  "--model",    "openai-compat/agent-model",
                                  "--base-url", server.base_url() + "/v1"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_ralph(args, dir.path());
  }
  std::vector<std::string> worker_args(const std::string& url, int n, const std::string& lease,
                                       int concurrency = 2) const {
    return {"worker",
            "--queue",
            url,
            "--concurrency",
            std::to_string(concurrency),
            "--lease",
            lease,
            "--exit-when-empty",
            "--workdir",
            (dir.path() / ("worker" + std::to_string(n))).string()};
  }
  json session_in(const std::string& url, const std::string& id) const {
    const RalphOutput out =
        run_ralph({"sessions", "show", id, "--json", "--store", url}, dir.path());
    EXPECT_EQ(out.exit_code, 0) << out.err;
    return parse_output(out);
  }
  static std::vector<store::QueuedGoal> queued(const std::string& url, bool finished_only) {
    auto queue = store::GoalQueue::open(url, std::chrono::seconds(10));
    EXPECT_TRUE(queue) << queue.error().message;
    auto goals = (*queue)->goals("b", finished_only);
    EXPECT_TRUE(goals) << goals.error().message;
    return goals ? *goals : std::vector<store::QueuedGoal>{};
  }
  // SIGTERM: the worker exits 130 having given goal `id`, the batch's only one, back to the queue
  // at once (not waiting for its lease to run out); its session id, as the queue holds it.
  static std::string stop_and_expect_given_back(RalphProcess& worker, const std::string& url,
                                                const std::string& id) {
    worker.signal(SIGTERM);
    const RalphOutput out = worker.wait();
    EXPECT_EQ(out.exit_code, 130) << out.err;
    EXPECT_THAT(out.err, HasSubstr("b/" + id + " · interrupted, given back to the queue"));
    const auto goals = queued(url, false);
    EXPECT_EQ(goals.size(), 1u);
    if (goals.size() != 1) {
      return {};
    }
    EXPECT_EQ(goals[0].state, store::GoalState::queued);
    return goals[0].session_id;
  }
  // Every goal finished once, completed, by its last claim.
  static void expect_each_done_once(const std::vector<store::QueuedGoal>& goals,
                                    std::size_t count) {
    ASSERT_EQ(goals.size(), count);
    std::set<std::string> ids;
    for (const store::QueuedGoal& goal : goals) {
      ids.insert(goal.id);
      EXPECT_EQ(goal.state, store::GoalState::done) << goal.id;
      EXPECT_EQ(goal.status, "completed") << goal.id << " " << goal.result_json;
      const json result = json::parse(goal.result_json);
      EXPECT_EQ(result["id"], goal.id);
      EXPECT_EQ(result["status"], "completed");
      EXPECT_EQ(result["tries"], goal.tries);
      EXPECT_EQ(result["worker"], goal.worker);
    }
    EXPECT_EQ(ids.size(), count);
  }

  mutable FakeProviderServer server{72};
  TempDir dir;
};

TEST_F(WorkerEndToEnd, EnqueueingTwiceQueuesEachGoalOnce) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  const fs::path goals = goals_file({"one", "two", "three"});
  const auto first = enqueue(url, goals);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_THAT(first.out, HasSubstr("b · 3 added, 0 queued already"));
  const auto again = enqueue(url, goals);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr("b · 0 added, 3 queued already"));
  EXPECT_EQ(queued(url, false).size(), 3u);

  // The same id with another line is said, and left as it was.
  dir.write("changed.jsonl", R"({"id": "two", "goal": "write else.txt"})"
                             "\n"
                             R"({"id": "four", "goal": "write four.txt"})"
                             "\n");
  const auto changed = enqueue(url, dir.path() / "changed.jsonl");
  EXPECT_EQ(changed.exit_code, 1) << changed.err;
  EXPECT_THAT(changed.err, HasSubstr("changed.jsonl:1: id 'two' is queued already in batch b "
                                     "with another line; left as it was"));
  EXPECT_THAT(changed.out, HasSubstr("1 added, 0 queued already, 1 with another line"));
  const auto goals_now = queued(url, false);
  ASSERT_EQ(goals_now.size(), 4u);
  EXPECT_THAT(goals_now[1].spec_json, HasSubstr("write two.txt"));

  // Another machine's worker cannot see this one's folders.
  dir.write("local.jsonl", R"({"id": "five", "goal": "write five.txt", "workspace": "."})"
                           "\n");
  const auto local = enqueue(url, dir.path() / "local.jsonl");
  EXPECT_EQ(local.exit_code, 2);
  EXPECT_THAT(local.err, HasSubstr("local.jsonl:1: a queued goal names its workspace with 'repo'"));
  EXPECT_THAT(local.err, HasSubstr("nothing was queued"));

  const auto status =
      run_ralph({"batch", "status", "--queue", url, "--name", "b", "--json"}, dir.path());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const json counts = parse_output(status);
  EXPECT_EQ(counts["queued"], 4);
  EXPECT_EQ(counts["goals"], 4);
  const auto missing = run_ralph({"batch", "status", "--queue", url, "--name", "nope"}, dir.path());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("no batch 'nope' in the queue"));
}

TEST_F(WorkerEndToEnd, AKilledWorkersGoalIsTakenOverAndResumedOnceByAnother) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  QueueModel model(server, {"slow"});
  const std::vector<std::string> ids{"slow", "g1", "g2", "g3", "g4", "g5"};
  ASSERT_EQ(enqueue(url, goals_file(ids)).exit_code, 0);

  std::vector<std::unique_ptr<RalphProcess>> workers;
  for (int n = 0; n < 3; ++n) {
    workers.push_back(std::make_unique<RalphProcess>(worker_args(url, n, "2s"), dir.path()));
  }
  // The slow goal's first model call is recorded; its second is held: kill its worker now.
  ASSERT_TRUE(model.wait_for_held());
  std::string session;
  pid_t holder = -1;
  for (const store::QueuedGoal& goal : queued(url, false)) {
    if (goal.id == "slow") {
      ASSERT_EQ(goal.state, store::GoalState::running);
      session = goal.session_id;
      holder = std::stoi(goal.worker.substr(goal.worker.find(':') + 1));
    }
  }
  ASSERT_FALSE(session.empty());
  // The sessions are in the queue's database, where every worker records and resumes them.
  const json before = session_in(url, session);
  RalphProcess* killed = nullptr;
  for (auto& worker : workers) {
    if (worker->pid() == holder) {
      killed = worker.get();
    }
  }
  ASSERT_NE(killed, nullptr) << "no worker with pid " << holder;
  killed->signal(SIGKILL);
  EXPECT_EQ(killed->wait().exit_code, 128 + SIGKILL);
  model.release();
  for (auto& worker : workers) {
    if (worker.get() != killed) {
      const RalphOutput out = worker->wait();
      EXPECT_EQ(out.exit_code, 0) << out.err;
    }
  }

  const auto goals = queued(url, true);
  expect_each_done_once(goals, ids.size());
  for (const store::QueuedGoal& goal : goals) {
    if (goal.id != "slow") {
      EXPECT_EQ(model.requests(goal.id), 2) << goal.id; // never run twice
      EXPECT_EQ(goal.tries, 1);
      continue;
    }
    // Taken over by another worker, in the same session, its earlier spend carried on.
    EXPECT_EQ(goal.tries, 2);
    EXPECT_EQ(goal.worker.find(":" + std::to_string(holder) + ":"), std::string::npos);
    EXPECT_EQ(goal.session_id, session);
    const json result = json::parse(goal.result_json);
    EXPECT_EQ(result["session_id"], session);
    EXPECT_GT(tokens_of(before["usage"]), 0);
    EXPECT_GT(goal.tokens, tokens_of(before["usage"]));
  }
  const json after = session_in(url, session);
  EXPECT_EQ(after["status"], "completed");
  // The first worker's model call is still in the record, the resumed run's after it.
  ASSERT_EQ(before["model_calls"].size(), 1u);
  ASSERT_GT(after["model_calls"].size(), 1u);
  EXPECT_EQ(after["model_calls"][0], before["model_calls"][0]);
  EXPECT_EQ(tokens_of(after["usage"]), goal_tokens(after));
  EXPECT_TRUE(fs::exists(dir.path() / "worker0" / "goals" / "b" / "g1" / "g1.txt") ||
              fs::exists(dir.path() / "worker1" / "goals" / "b" / "g1" / "g1.txt") ||
              fs::exists(dir.path() / "worker2" / "goals" / "b" / "g1" / "g1.txt"));

  const fs::path exported = dir.path() / "results.jsonl";
  const auto out = run_ralph(
      {"batch", "export", "--queue", url, "--name", "b", "-o", exported.string()}, dir.path());
  ASSERT_EQ(out.exit_code, 0) << out.err;
  std::ifstream in(exported);
  std::set<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    EXPECT_TRUE(lines.insert(json::parse(line)["id"].get<std::string>()).second) << line;
  }
  EXPECT_EQ(lines.size(), ids.size());
}

TEST_F(WorkerEndToEnd, AGoalOfARepoWorksInAWorktreeAndItsResultIsAPushedBranchOrAPatch) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  QueueModel model(server);
  const fs::path source = dir.path() / "source";
  const fs::path remote = dir.path() / "remote.git";
  dir.write("source/README.md", "the source\n");
  const std::string git = "git -c user.email=t@t -c user.name=t ";
  ASSERT_EQ(
      std::system(("cd " + source.string() + " && git init -q -b main . && " + git + "add -A && " +
                   git + "commit -qm start && git init -q --bare " + remote.string())
                      .c_str()),
      0);
  const auto line = [&](const std::string& id) {
    return json{{"id", id},
                {"goal", "write " + id + ".txt"},
                {"repo", "file://" + source.string()},
                {"ref", "main"}}
               .dump() +
           "\n";
  };
  ASSERT_EQ(enqueue(url, dir.write("goals.jsonl", line("pushed"))).exit_code, 0);
  std::vector<std::string> args = worker_args(url, 0, "60s");
  args.insert(args.end(), {"--push", remote.string()});
  const RalphOutput pushed_run = run_ralph(args, dir.path());
  ASSERT_EQ(pushed_run.exit_code, 0) << pushed_run.err;
  // Its branch, with its file on the source's commit, is in the remote.
  const std::string branch = "ralph/queue/b/pushed";
  EXPECT_EQ(std::system(("git --git-dir=" + remote.string() + " cat-file -e " + branch +
                         ":pushed.txt && git --git-dir=" + remote.string() + " cat-file -e " +
                         branch + ":README.md")
                            .c_str()),
            0);
  auto goals = queued(url, true);
  ASSERT_EQ(goals.size(), 1u);
  json result = json::parse(goals[0].result_json);
  EXPECT_EQ(result["branch"], branch);
  EXPECT_EQ(result["pushed_to"], remote.string());
  EXPECT_EQ(result.count("patch"), 0u);

  // Without --push the patch is the result.
  ASSERT_EQ(enqueue(url, dir.write("goals.jsonl", line("pushed") + line("patched"))).exit_code, 0);
  const RalphOutput patched_run = run_ralph(worker_args(url, 1, "60s"), dir.path());
  ASSERT_EQ(patched_run.exit_code, 0) << patched_run.err;
  goals = queued(url, true);
  ASSERT_EQ(goals.size(), 2u);
  result = json::parse(goals[1].result_json);
  EXPECT_EQ(result["id"], "patched");
  EXPECT_THAT(result["patch"].get<std::string>(), HasSubstr("+++ b/patched.txt"));
  EXPECT_EQ(result["files"], json::array({"patched.txt"}));
  EXPECT_TRUE(fs::exists(dir.path() / "worker1" / "goals" / "b" / "patched" / "patched.txt"));
}

TEST_F(WorkerEndToEnd, AGoalTakenOverStartsFromTheWorkspaceItsDeadWorkerCheckpointed) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  // Attempt 1 writes ck.txt and is not verified (second.txt is missing); attempt 2's first request
  // waits for the test, which kills the worker there. The worker that takes the goal over
  // reruns attempt 2, which writes second.txt: verified only if ck.txt came back with the
  // checkpoint, since no attempt writes it again.
  std::promise<void> gate;
  const std::shared_future<void> released = gate.get_future().share();
  std::mutex mutex;
  std::condition_variable arrived;
  bool second_attempt = false;
  server.set_responder([&](const RecordedRequest& request) -> std::optional<FakeTurn> {
    const json body = json::parse(request.body);
    if (body["messages"].back().value("role", "") == "tool") {
      return text_turn("Done.");
    }
    int user_messages = 0;
    for (const json& message : body["messages"]) {
      user_messages += static_cast<int>(message.value("role", "") == "user");
    }
    if (user_messages == 1) {
      return tool_turn("write_file", {{"path", "ck.txt"}, {"content", "first attempt"}});
    }
    {
      std::lock_guard lock(mutex);
      second_attempt = true;
    }
    arrived.notify_all();
    released.wait_for(std::chrono::seconds(120));
    return tool_turn("write_file", {{"path", "second.txt"}, {"content", "second attempt"}});
  });
  const fs::path source = dir.path() / "source";
  dir.write("source/README.md", "the source\n");
  const std::string git = "git -c user.email=t@t -c user.name=t ";
  ASSERT_EQ(std::system(("cd " + source.string() + " && git init -q -b main . && " + git +
                         "add -A && " + git + "commit -qm start")
                            .c_str()),
            0);
  const std::string line = json{{"id", "ck"},
                                {"goal", "write ck.txt and second.txt"},
                                {"repo", "file://" + source.string()},
                                {"ref", "main"},
                                {"verify", "test -f ck.txt && test -f second.txt"}}
                               .dump() +
                           "\n";
  ASSERT_EQ(enqueue(url, dir.write("goals.jsonl", line), {"--max-iterations", "2"}).exit_code, 0);
  {
    RalphProcess first(worker_args(url, 0, "2s", 1), dir.path());
    std::unique_lock lock(mutex);
    ASSERT_TRUE(arrived.wait_for(lock, std::chrono::seconds(60), [&] { return second_attempt; }));
    lock.unlock();
    first.signal(SIGKILL);
    EXPECT_EQ(first.wait().exit_code, 128 + SIGKILL);
  }
  gate.set_value();
  const RalphOutput next = run_ralph(worker_args(url, 1, "2s", 1), dir.path());
  server.set_responder({});
  ASSERT_EQ(next.exit_code, 0) << next.err;
  EXPECT_THAT(next.err, HasSubstr("b/ck · workspace restored from its checkpoint"));
  const auto goals = queued(url, true);
  expect_each_done_once(goals, 1);
  EXPECT_EQ(goals[0].tries, 2);
  EXPECT_TRUE(goals[0].verified);
  const fs::path taken = dir.path() / "worker1" / "goals" / "b" / "ck";
  EXPECT_TRUE(fs::exists(taken / "ck.txt"));
  EXPECT_TRUE(fs::exists(taken / "second.txt"));
  // The result is the whole goal's work, both attempts', against the source's commit.
  EXPECT_EQ(json::parse(goals[0].result_json)["files"], json::array({"ck.txt", "second.txt"}));
}

TEST_F(WorkerEndToEnd, SigtermGivesTheRunningGoalsBackWithTheirSessions) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  QueueModel model(server, {"held"});
  // One attempt allowed (the batch's flag, carried to the worker in its settings): the attempt
  // SIGTERM cut short runs again on the next worker instead of counting as spent.
  const fs::path file = dir.write(
      "goals.jsonl", R"({"id": "held", "goal": "write held.txt", "verify": "test -f held.txt"})"
                     "\n");
  ASSERT_EQ(enqueue(url, file, {"--max-iterations", "1"}).exit_code, 0);
  std::string session;
  {
    RalphProcess worker(worker_args(url, 0, "60s"), dir.path());
    ASSERT_TRUE(model.wait_for_held());
    session = stop_and_expect_given_back(worker, url, "held");
    EXPECT_FALSE(session.empty());
  }
  // The tokens its session spent before the SIGTERM are the batch's so far.
  const json usage = session_in(url, session)["usage"];
  const std::int64_t spent =
      usage["input_tokens"].get<std::int64_t>() + usage["output_tokens"].get<std::int64_t>();
  EXPECT_GT(spent, 0);
  const RalphOutput status =
      run_ralph({"batch", "status", "--queue", url, "--name", "b", "--json"}, dir.path());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(parse_output(status)["tokens"], spent);
  EXPECT_TRUE(parse_output(status)["cost_usd"].is_null()) << "the fake model has no price";
  model.release();
  const RalphOutput next = run_ralph(worker_args(url, 1, "60s"), dir.path());
  ASSERT_EQ(next.exit_code, 0) << next.err;
  EXPECT_THAT(next.err, HasSubstr("resumed b/held · try 2"));
  const auto goals = queued(url, true);
  expect_each_done_once(goals, 1);
  EXPECT_EQ(goals[0].session_id, session);
  EXPECT_EQ(json::parse(goals[0].result_json)["iterations"], 1);
  EXPECT_EQ(json::parse(goals[0].result_json)["status"], "completed");
}

TEST_F(WorkerEndToEnd, AGoalsLeaseIsRenewedWhileItsRepositoryIsStillCloning) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  QueueModel model(server);
  dir.write("source/README.md", "the source\n");
  ASSERT_EQ(std::system(("cd " + (dir.path() / "source").string() +
                         " && git init -q -b main . && git add -A && git -c user.email=t@t -c "
                         "user.name=t commit -qm start")
                            .c_str()),
            0);
  // A clone that lasts until the test says: `gated::PATH` is served by this remote helper, which
  // answers git only once gate/open exists (git runs git-remote-gated for that scheme).
  const fs::path gate = dir.path() / "gate";
  fs::create_directories(gate);
  const fs::path helper = dir.write("bin/git-remote-gated", R"(#!/bin/sh
touch "$TEST_GATE_DIR/asked"
while [ ! -e "$TEST_GATE_DIR/open" ]; do sleep 0.05; done
while read -r line; do
  case "$line" in
    capabilities) printf 'connect\n\n' ;;
    "connect "*) printf '\n'; exec "${line#connect }" "$2" ;;
    *) exit 1 ;;
  esac
done
)");
  fs::permissions(helper, fs::perms::owner_all);
  const std::map<std::string, std::string> env{
      {"PATH", (dir.path() / "bin").string() + ":" + std::getenv("PATH")},
      {"TEST_GATE_DIR", gate.string()}};
  const std::string goal = json{{"id", "cloned"},
                                {"goal", "write cloned.txt"},
                                {"repo", "gated::" + (dir.path() / "source").string()}}
                               .dump();
  ASSERT_EQ(enqueue(url, dir.write("goals.jsonl", goal + "\n")).exit_code, 0);

  const auto lease_of_the_goal = [&] {
    const auto goals = queued(url, false);
    return goals.size() == 1 ? goals[0].lease_until : std::string();
  };
  {
    RalphProcess worker(worker_args(url, 0, "1s"), dir.path(), env);
    ASSERT_TRUE(eventually([&] { return fs::exists(gate / "asked"); })) << "git never asked";
    const std::string claimed = lease_of_the_goal();
    ASSERT_FALSE(claimed.empty());
    // A clone taking longer than the lease: renewed all the same (the main thread cloned, and
    // renewed nothing until the clone was done, so another worker could take the goal over).
    EXPECT_TRUE(eventually([&] {
      const std::string now = lease_of_the_goal();
      return !now.empty() && now != claimed;
    })) << "the lease was never renewed";
    // Stopped while cloning: the goal is given back, not failed.
    stop_and_expect_given_back(worker, url, "cloned");
  }
  dir.write("gate/open", "");
  const RalphOutput next = run_ralph(worker_args(url, 1, "1s"), dir.path(), env);
  ASSERT_EQ(next.exit_code, 0) << next.err;
  const auto goals = queued(url, true);
  expect_each_done_once(goals, 1);
  EXPECT_EQ(goals[0].tries, 2);
  EXPECT_THAT(json::parse(goals[0].result_json)["patch"].get<std::string>(),
              HasSubstr("+++ b/cloned.txt"));
}

TEST_F(WorkerEndToEnd, APostgresRestartMidBatchLosesAndDoublesNothing) {
  PgCluster cluster;
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  QueueModel model(server, {"g3"});
  std::vector<std::string> ids;
  for (int i = 0; i < 12; ++i) {
    ids.push_back("g" + std::to_string(i));
  }
  ASSERT_EQ(enqueue(url, goals_file(ids)).exit_code, 0);
  // A lease longer than the restart: no goal is taken over, so none runs twice.
  RalphProcess a(worker_args(url, 0, "60s"), dir.path());
  RalphProcess b(worker_args(url, 1, "60s"), dir.path());
  ASSERT_TRUE(model.wait_for_held());
  cluster.halt();
  cluster.resume();
  model.release();
  for (RalphProcess* worker : {&a, &b}) {
    const RalphOutput out = worker->wait();
    EXPECT_EQ(out.exit_code, 0) << out.err;
  }
  const auto goals = queued(url, true);
  expect_each_done_once(goals, ids.size());
  for (const std::string& id : ids) {
    EXPECT_EQ(model.requests(id), 2) << id;
  }
}

TEST_F(WorkerEndToEnd, AThousandGoalsThroughThreeWorkersEachFinishOnce) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  QueueModel model(server);
  std::vector<std::string> ids;
  for (int i = 0; i < 1000; ++i) {
    ids.push_back("goal" + std::to_string(i));
  }
  ASSERT_EQ(enqueue(url, goals_file(ids)).exit_code, 0);
  std::vector<std::unique_ptr<RalphProcess>> workers;
  for (int n = 0; n < 3; ++n) {
    workers.push_back(std::make_unique<RalphProcess>(worker_args(url, n, "30s", 16), dir.path()));
  }
  for (auto& worker : workers) {
    const RalphOutput out = worker->wait();
    EXPECT_EQ(out.exit_code, 0) << out.err;
  }
  const auto goals = queued(url, true);
  expect_each_done_once(goals, ids.size());
  int first_tries = 0;
  for (const store::QueuedGoal& goal : goals) {
    first_tries += static_cast<int>(goal.tries == 1);
  }
  EXPECT_EQ(first_tries, 1000);
  const auto status = run_ralph({"batch", "status", "--queue", url, "--json"}, dir.path());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const json counts = parse_output(status);
  EXPECT_EQ(counts["done"], 1000);
  EXPECT_EQ(counts["statuses"]["completed"], 1000);
}

} // namespace
} // namespace ralph::testing
