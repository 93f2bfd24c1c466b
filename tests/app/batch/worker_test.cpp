// A worker through the library: the in-memory goal queue whose leases run on a FakeClock, the
// worker's schedule on the same clock, real sessions on scripted models in a real SQLite store.
#include "notify/webhook_receiver.h"
#include "support/fake_clock.h"
#include "support/fake_goal_queue.h"
#include "support/temp_dir.h"

#include "ralph/app/batch/enqueue.h"
#include "ralph/app/batch/worker.h"
#include "ralph/session/record.h"
#include "ralph/store/sqlite_session_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <mutex>

namespace ralph::app {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::FakeClock;
using testing::FakeGoalQueue;
using testing::TempDir;

// Writes Hello to hello.txt, which the goals' verifier checks, and says so.
constexpr const char* k_right = R"({"model": "scripted", "turns": [
  {"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": "Hello\n"}}]},
  {"text": "Done right."}]})";
// Runs a command that only a cancel ends.
constexpr const char* k_stuck = R"({"model": "scripted", "turns": [
  {"tool_calls": [{"name": "shell", "arguments": {"command": "sleep 600"}}]},
  {"text": "Woke up."}]})";

constexpr auto k_lease = 3s;

// Everything the worker told its observer (from its thread, but checkpoint_not_saved); the
// hooks act on the worker or the queue from there.
struct RecordingObserver final : WorkerObserver {
  void worker_started(const WorkerStart& start) override { name = start.name; }
  void workspace_restored(const WorkerGoal& goal) override { restored.push_back(goal.id); }
  void goal_started(const WorkerGoal& goal) override { started.push_back(goal); }
  void goal_finished(const WorkerGoal& goal, const session::SessionReport& report,
                     bool was_recorded) override {
    finished.emplace_back(goal.id, report);
    recorded.push_back(was_recorded);
  }
  void goal_released(const WorkerGoal& goal) override { released.push_back(goal.id); }
  void lease_lost(const WorkerGoal& goal) override {
    lost.push_back(goal.id);
    if (on_lost) {
      on_lost();
    }
  }
  void checkpoint_not_saved(const WorkerGoal& /*goal*/, const Error& error) override {
    const std::lock_guard lock(mutex);
    checkpoint_errors.push_back(error.message);
  }

  std::string name;
  std::vector<std::string> restored;
  std::vector<WorkerGoal> started;
  std::vector<std::pair<std::string, session::SessionReport>> finished;
  std::vector<bool> recorded;
  std::vector<std::string> released;
  std::vector<std::string> lost;
  std::mutex mutex;
  std::vector<std::string> checkpoint_errors;
  std::function<void()> on_lost;
};

struct Fixture {
  TempDir dir;
  FakeClock clock;
  FakeGoalQueue queue{clock};
  session::Runtime runtime{session::Environment::of({})};
  WorkerRequest request;

  Fixture() {
    request.workdir = dir.path() / "worker";
    fs::create_directories(request.workdir);
    request.config.store.url = (dir.path() / "sessions.db").string();
    request.name = "w1";
    request.concurrency = 1;
    request.lease = k_lease;
  }

  std::string model(const std::string& name, const char* script) const {
    return "scripted/" + dir.write("models/" + name + ".json", script).string();
  }
  // Queues goals "write Hello to hello.txt" named `ids` as batch "b", run with `model`.
  void enqueue(const std::vector<std::string>& ids, const std::string& model) {
    std::string text;
    for (const std::string& id : ids) {
      text += nlohmann::json{{"id", id},
                             {"goal", "Write Hello to hello.txt."},
                             {"verify", "grep -qx Hello hello.txt"}}
                  .dump() +
              "\n";
    }
    const fs::path file = dir.write("goals.jsonl", text);
    Config config;
    config.model = model;
    auto goals = read_queued_goals(file, config);
    ASSERT_TRUE(goals && goals->problems.empty());
    auto queued = enqueue_goals(
        queue, {.batch = "b", .goals_file = file, .config = config, .goals = goals->goals});
    ASSERT_TRUE(queued) << queued.error().message;
    ASSERT_EQ(queued->added.size(), ids.size());
  }
  Result<WorkerEnd> run(RecordingObserver& observer, const CancelToken& cancel = CancelToken()) {
    return run_worker(runtime, request, observer, queue, clock, cancel);
  }
  store::QueuedGoal row(const std::string& id) {
    const auto goals = queue.goals("b", false);
    for (const store::QueuedGoal& goal : *goals) {
      if (goal.id == id) {
        return goal;
      }
    }
    ADD_FAILURE() << "no goal " << id;
    return {};
  }
  std::unique_ptr<store::SessionStore> store() const {
    auto opened = store::SqliteSessionStore::open(request.config.store.url);
    EXPECT_TRUE(opened) << opened.error().message;
    return opened ? std::move(*opened) : nullptr;
  }
};

TEST(Worker, EachGoalRunsToAResultInTheQueueAndTheWorkerEndsWithTheQueue) {
  Fixture f;
  f.enqueue({"g1", "g2"}, f.model("right", k_right));
  f.request.exit_when_empty = true;
  RecordingObserver observer;
  const auto end = f.run(observer);
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_EQ(end->finished, 2);
  EXPECT_FALSE(end->interrupted);
  EXPECT_FALSE(end->fault);
  EXPECT_EQ(observer.recorded, (std::vector<bool>{true, true}));
  for (const char* id : {"g1", "g2"}) {
    const store::QueuedGoal goal = f.row(id);
    EXPECT_EQ(goal.state, store::GoalState::done) << id;
    EXPECT_EQ(goal.worker, "w1");
    EXPECT_EQ(goal.tries, 1);
    const auto result = nlohmann::json::parse(goal.result_json);
    EXPECT_EQ(result["status"], "completed");
    EXPECT_EQ(result["answer"], "Done right.");
    EXPECT_EQ(result["batch"], "b");
    EXPECT_EQ(result["worker"], "w1");
    EXPECT_EQ(result["session_id"], goal.session_id);
    EXPECT_EQ(f.dir.read("worker/goals/b/" + std::string(id) + "/hello.txt"), "Hello\n");
  }
  EXPECT_FALSE(*f.queue.has_work());
}

TEST(Worker, EachGoalAndTheBatchsEndAreNotifiedOnce) {
  Fixture f;
  testing::WebhookReceiver receiver;
  f.enqueue({"g1", "g2"}, f.model("right", k_right));
  f.request.exit_when_empty = true;
  f.request.config.notify = {NotifyTarget{
      .url = receiver.url("/w"), .events = {NotifyEvent::completed, NotifyEvent::batch_finished}}};
  RecordingObserver observer;
  const auto end = f.run(observer);
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_EQ(f.runtime.drain_notifications(), 0);
  const auto got = receiver.received();
  ASSERT_EQ(got.size(), 3U);
  std::vector<nlohmann::json> bodies;
  for (const auto& request : got) {
    bodies.push_back(nlohmann::json::parse(request.body));
  }
  EXPECT_EQ(bodies[0]["event"], "completed");
  EXPECT_EQ(bodies[0]["batch"], (nlohmann::json{{"id", "b"}, {"goal", "g1"}}));
  EXPECT_EQ(bodies[0]["session"], f.row("g1").session_id);
  EXPECT_EQ(bodies[1]["batch"]["goal"], "g2");
  // Only once its last goal is finished.
  EXPECT_EQ(bodies[2]["event"], "batch_finished");
  EXPECT_EQ(bodies[2]["batch"]["id"], "b");
  EXPECT_EQ(bodies[2]["worker"], "w1");
  EXPECT_EQ(bodies[2]["goals"], 2);
  EXPECT_EQ(bodies[2]["finished"], 2);
  EXPECT_EQ(bodies[2]["statuses"]["completed"], 2);
  EXPECT_EQ(bodies[2]["verified"], 2);
}

TEST(Worker, LeasesAreRenewedEveryThirdOfTheLeaseOnItsClock) {
  Fixture f;
  f.enqueue({"g"}, f.model("stuck", k_stuck));
  CancelToken stop;
  f.queue.on_renew = [&](std::size_t renewals) {
    if (renewals == 3) {
      stop.cancel();
    }
  };
  RecordingObserver observer;
  const auto end = f.run(observer, stop);
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_TRUE(end->interrupted);
  // Claimed at the clock's 0: renewed at each third of the lease from then on, also while the
  // stopped goal winds down.
  const std::vector<Clock::time_point> renewals = f.queue.renewals();
  ASSERT_GE(renewals.size(), 3u);
  for (std::size_t i = 0; i < renewals.size(); ++i) {
    EXPECT_EQ(renewals[i], Clock::time_point(1s * (i + 1))) << "renewal " << i;
  }
  // Stopped: the goal is given back with its session, to resume.
  EXPECT_EQ(observer.released, std::vector<std::string>{"g"});
  EXPECT_EQ(f.row("g").state, store::GoalState::queued);
  EXPECT_FALSE(f.row("g").session_id.empty());
}

TEST(Worker, AGoalWhoseLeaseIsLostIsStoppedAndItsResultNotRecorded) {
  Fixture f;
  f.enqueue({"g"}, f.model("stuck", k_stuck));
  const auto sessions = f.store();
  // Once its session runs its first attempt, its lease runs out and another worker takes it over.
  bool taken = false;
  f.queue.on_renew = [&](std::size_t) {
    const std::string session = f.row("g").session_id;
    const auto record = sessions->load(session);
    if (taken || session.empty() || !record || !*record || (*record)->attempts.empty()) {
      return;
    }
    f.clock.advance(2 * k_lease);
    const auto claimed = f.queue.claim("thief", 1, 60s);
    taken = claimed && claimed->size() == 1u;
  };
  CancelToken stop;
  RecordingObserver observer;
  observer.on_lost = [&] { stop.cancel(); };
  const auto end = f.run(observer, stop);
  ASSERT_TRUE(end) << end.error().message;
  ASSERT_TRUE(taken);
  EXPECT_EQ(observer.lost, std::vector<std::string>{"g"});
  EXPECT_TRUE(observer.finished.empty());
  EXPECT_TRUE(observer.released.empty());
  EXPECT_EQ(end->finished, 0);
  const store::QueuedGoal goal = f.row("g");
  EXPECT_EQ(goal.worker, "thief");
  EXPECT_EQ(goal.tries, 2);
  EXPECT_EQ(goal.state, store::GoalState::running);
  EXPECT_TRUE(goal.result_json.empty());
  // Its session was stopped in its first attempt, not run to an end.
  const auto record = sessions->load(goal.session_id);
  ASSERT_TRUE(record && *record);
  EXPECT_EQ((*record)->session.status, Status::interrupted);
}

TEST(Worker, AGoalTakenOverResumesItsSessionAndTheWorkerEndsWhenNothingIsLeft) {
  Fixture f;
  f.enqueue({"g"}, f.model("right", k_right));
  // A worker claimed it, recorded its session and died: its lease runs out on the clock.
  Config recorded;
  recorded.model = f.model("right", k_right);
  recorded.verify.commands = {"grep -qx Hello hello.txt"};
  const store::SessionRow row =
      session::new_session_row("dead-session", "Write Hello to hello.txt.", f.dir.path(), recorded,
                               f.runtime.redactor(), {}, f.clock.wall_now());
  ASSERT_TRUE(f.store()->create_session(row));
  const auto claimed = f.queue.claim("dead", 1, k_lease);
  ASSERT_TRUE(claimed && claimed->size() == 1u);
  ASSERT_TRUE(*f.queue.set_session("dead", store::claim_of((*claimed)[0]), "dead-session"));

  f.request.exit_when_empty = true;
  RecordingObserver observer;
  const auto end = f.run(observer);
  ASSERT_TRUE(end) << end.error().message;
  ASSERT_EQ(observer.started.size(), 1u);
  EXPECT_TRUE(observer.started[0].resumed);
  EXPECT_EQ(observer.started[0].tries, 2);
  ASSERT_EQ(observer.finished.size(), 1u);
  EXPECT_EQ(observer.finished[0].second.session_id, "dead-session");
  EXPECT_EQ(observer.finished[0].second.status, Status::completed)
      << observer.finished[0].second.reason;
  EXPECT_EQ(end->finished, 1);
  const store::QueuedGoal goal = f.row("g");
  EXPECT_EQ(goal.state, store::GoalState::done);
  EXPECT_EQ(goal.worker, "w1");
  EXPECT_EQ(goal.session_id, "dead-session");
  EXPECT_EQ(nlohmann::json::parse(goal.result_json)["session_id"], "dead-session");
  const auto record = f.store()->load("dead-session");
  ASSERT_TRUE(record && *record);
  EXPECT_EQ((*record)->session.status, Status::completed);
  EXPECT_EQ((*record)->attempts.size(), 1u);
}

} // namespace
} // namespace ralph::app
