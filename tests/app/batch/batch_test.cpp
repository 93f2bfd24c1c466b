// A batch through the library, as `ralph batch` runs it: real sessions on scripted models, real
// git worktrees, a real SQLite store, the journals on disk.
#include "support/temp_dir.h"

#include "ralph/app/batch/batch.h"
#include "ralph/core/json.h"
#include "ralph/session/record.h"
#include "ralph/store/sqlite_session_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <optional>
#include <set>

namespace ralph::app {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::TempDir;

// Writes Hello to hello.txt, which the goals' verifier checks, and says so.
constexpr const char* k_right = R"({"model": "scripted", "turns": [
  {"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": "Hello\n"}}]},
  {"text": "Done right."}]})";
// Says it is done and never writes the file.
constexpr const char* k_wrong = R"({"model": "scripted", "turns": [
  {"text": "Done wrong."}, {"text": "Done wrong."}, {"text": "Done wrong."}]})";
// Runs a command that only a cancel ends.
constexpr const char* k_stuck = R"({"model": "scripted", "turns": [
  {"tool_calls": [{"name": "shell", "arguments": {"command": "sleep 600"}}]},
  {"text": "Woke up."}]})";

std::vector<nlohmann::json> read_lines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(nlohmann::json::parse(line));
  }
  return lines;
}

// Everything the batch told its observer; `on_progress` may act on the batch from its thread.
struct RecordingObserver final : BatchObserver {
  void batch_started(const BatchStart& start) override { started = start; }
  void goal_started(const GoalStart& goal) override { goals_started.push_back(goal); }
  void goal_finished(const FinishedGoal& goal) override { goals_finished.push_back(goal); }
  void goal_stopped(const std::string& id, const session::SessionReport& /*report*/) override {
    goals_stopped.push_back(id);
  }
  void progress(const BatchProgress& progress) override {
    if (on_progress) {
      on_progress(progress);
    }
  }
  void journal_error(const Error& error) override { errors.push_back(error.message); }

  std::optional<BatchStart> started;
  std::vector<GoalStart> goals_started;
  std::vector<FinishedGoal> goals_finished;
  std::vector<std::string> goals_stopped;
  std::vector<std::string> errors;
  std::function<void(const BatchProgress&)> on_progress;
};

struct Fixture {
  TempDir dir;
  fs::path workspace = dir.path() / "work";
  session::Runtime runtime{session::Environment::of({})};
  SystemClock clock;

  Fixture() {
    dir.write("work/README.md", "the source\n");
    const std::string git = "git -C " + workspace.string() + " -c user.email=t@t -c user.name=t ";
    EXPECT_EQ(std::system(
                  (git + "init -q . && " + git + "add -A && " + git + "commit -qm start").c_str()),
              0);
    workspace = fs::canonical(workspace);
  }

  std::string model(const std::string& name, const char* script) const {
    return "scripted/" + dir.write("models/" + name + ".json", script).string();
  }
  // A goals line: write hello.txt, checked by grep, with `keys` added.
  static std::string line(const std::string& id, nlohmann::json keys = nlohmann::json::object()) {
    keys["id"] = id;
    keys["goal"] = "Write Hello to hello.txt.";
    keys["verify"] = "grep -qx Hello hello.txt";
    return keys.dump() + "\n";
  }
  // The goals of `text`, read once over the batch's configuration, as a request.
  BatchRequest request(const std::string& text) const {
    const fs::path file = dir.write("goals.jsonl", text);
    auto config = batch_config(Config{}, workspace);
    EXPECT_TRUE(config) << config.error().message;
    auto read = read_goals_file(file, *config);
    EXPECT_TRUE(read && read->problems.empty());
    return BatchRequest{.workspace = workspace,
                        .goals_file = file,
                        .goals = read->goals,
                        .config = *config,
                        .concurrency = 2};
  }
  // The goal `id` of `request`.
  static BatchGoal& goal(BatchRequest& request, const std::string& id) {
    return *std::find_if(request.goals.begin(), request.goals.end(),
                         [&](const BatchGoal& g) { return g.id == id; });
  }
  std::unique_ptr<store::SessionStore> store() const {
    auto opened = store::SqliteSessionStore::open(workspace / ".ralph" / "ralph.db");
    EXPECT_TRUE(opened) << opened.error().message;
    return opened ? std::move(*opened) : nullptr;
  }
};

// A setting as the goals file would type it.
Setting setting(const std::string& key, const std::string& value) {
  auto parsed = Setting::parse({.key = key, .value = value, .flag = "test"});
  EXPECT_TRUE(parsed) << parsed.error().message;
  return *parsed;
}

TEST(Batch, EachFinishedGoalIsAResultsLineAndTheSameBatchAgainRunsNoneOfThem) {
  Fixture f;
  BatchRequest request = f.request(Fixture::line("a", {{"model", f.model("right", k_right)}}) +
                                   Fixture::line("b", {{"model", f.model("right", k_right)}}));
  request.outputs.events_file = f.dir.path() / "events.ndjson";
  RecordingObserver observer;
  const auto end = run_batch(f.runtime, request, observer, f.clock, CancelToken());
  ASSERT_TRUE(end) << end.error().message;
  ASSERT_TRUE(observer.started);
  EXPECT_EQ(observer.started->goals, 2);
  EXPECT_EQ(observer.goals_finished.size(), 2u);
  EXPECT_FALSE(end->interrupted);
  EXPECT_EQ(end->progress.finished_now, 2);
  EXPECT_TRUE(observer.errors.empty());

  const fs::path dir = observer.started->dir;
  EXPECT_EQ(end->results_file, (dir / "results.jsonl").string());
  const auto results = read_lines(dir / "results.jsonl");
  ASSERT_EQ(results.size(), 2u);
  std::set<std::string> sessions;
  for (const nlohmann::json& line : results) {
    EXPECT_EQ(line["status"], "completed") << line.dump();
    EXPECT_EQ(line["answer"], "Done right.");
    const std::string id = line["id"];
    // Each in its own worktree, on its own branch.
    EXPECT_EQ(line["workspace"], (dir / id).string());
    EXPECT_EQ(line["branch"], "ralph/batch/" + observer.started->batch_id + "/" + id);
    EXPECT_EQ(
        f.dir.read("work/.ralph/batch/" + observer.started->batch_id + "/" + id + "/hello.txt"),
        "Hello\n");
    sessions.insert(line["session_id"].get<std::string>());
  }
  EXPECT_FALSE(fs::exists(f.workspace / "hello.txt")) << "the source is left as it was";
  const std::string events = f.dir.read("events.ndjson");
  for (const std::string& session : sessions) {
    EXPECT_THAT(events, HasSubstr("\"session\":\"" + session + "\""));
  }
  const auto listed = f.store()->list_sessions();
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->size(), 2u);

  RecordingObserver again;
  const auto second = run_batch(f.runtime, request, again, f.clock, CancelToken());
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(again.started->finished, 2);
  EXPECT_TRUE(again.goals_started.empty());
  EXPECT_EQ(second->progress.finished.size(), 2u);
  EXPECT_EQ(second->progress.finished_now, 0);
  EXPECT_EQ(read_lines(dir / "results.jsonl").size(), 2u);
  EXPECT_EQ(f.store()->list_sessions()->size(), 2u) << "no session was started again";
}

TEST(Batch, ARunOfAFinishedBatchReportsTheRecordedTotalsOfItsGoals) {
  Fixture f;
  BatchRequest request = f.request(Fixture::line("a", {{"model", f.model("right", k_right)}}));
  RecordingObserver observer;
  const auto first = run_batch(f.runtime, request, observer, f.clock, CancelToken());
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_GT(first->progress.spend.tokens, 0);
  EXPECT_FALSE(first->progress.spend.cost_known) << "the scripted model has no price";

  RecordingObserver again;
  const auto second = run_batch(f.runtime, request, again, f.clock, CancelToken());
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_TRUE(again.goals_started.empty());
  EXPECT_EQ(second->progress.spend.tokens, first->progress.spend.tokens);
  EXPECT_FALSE(second->progress.spend.cost_known) << "an unknown cost stays unknown, not $0";
}

// The goals file says `wrong`; what the request holds after reading says otherwise. A library that
// read the line again would run the wrong model and end budget_exhausted.
TEST(Batch, GoalsRunWithTheSettingsTheyWereReadWithNewAndResumed) {
  Fixture f;
  const std::string wrong = f.model("wrong", k_wrong);
  const std::string text = Fixture::line("a", {{"model", wrong}, {"max_iterations", 1}}) +
                           Fixture::line("b", {{"model", wrong}, {"max_iterations", 2}});
  BatchRequest first = f.request(text);
  first.concurrency = 1; // `a` ends before `b` starts
  Fixture::goal(first, "a").config.model = f.model("right", k_right);
  BatchGoal& stuck = Fixture::goal(first, "b");
  stuck.config.model = f.model("stuck", k_stuck);
  stuck.settings = {setting("model", stuck.config.model)};
  for (BatchGoal& goal : first.goals) {
    goal.spec_json = "not a goal";
  }
  // Stopped once `b` is in its first attempt (its command runs until cancelled): `b` is
  // interrupted, and goes on when the batch runs again.
  CancelToken cancel;
  RecordingObserver observer;
  observer.on_progress = [&](const BatchProgress& progress) {
    for (const RunningGoal& goal : progress.running) {
      if (goal.id == "b" && goal.attempt == 1) {
        cancel.cancel();
      }
    }
  };
  const auto end = run_batch(f.runtime, first, observer, f.clock, cancel);
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_TRUE(end->interrupted);
  EXPECT_EQ(end->unfinished, 1);
  EXPECT_EQ(observer.goals_stopped, std::vector<std::string>{"b"});
  ASSERT_EQ(observer.goals_finished.size(), 1u);
  EXPECT_EQ(observer.goals_finished[0].id, "a");
  EXPECT_EQ(observer.goals_finished[0].report.status, Status::completed)
      << observer.goals_finished[0].report.reason;
  EXPECT_EQ(observer.goals_finished[0].report.answer, "Done right.");
  std::string session_b;
  for (const GoalStart& goal : observer.goals_started) {
    session_b = goal.id == "b" ? goal.session_id : session_b;
  }

  // Run again: `a` is finished; `b` goes on from its record with its typed settings as edited.
  BatchRequest second = f.request(text);
  BatchGoal& resumed = Fixture::goal(second, "b");
  resumed.settings = {setting("model", f.model("right", k_right))};
  resumed.spec_json = "not a goal";
  RecordingObserver again;
  const auto next = run_batch(f.runtime, second, again, f.clock, CancelToken());
  ASSERT_TRUE(next) << next.error().message;
  ASSERT_EQ(again.goals_started.size(), 1u);
  EXPECT_EQ(again.goals_started[0].id, "b");
  EXPECT_TRUE(again.goals_started[0].resumed);
  EXPECT_EQ(again.goals_started[0].session_id, session_b);
  ASSERT_EQ(again.goals_finished.size(), 1u);
  const session::SessionReport& report = again.goals_finished[0].report;
  EXPECT_EQ(report.status, Status::completed) << report.reason;
  EXPECT_EQ(report.answer, "Done right.");
  EXPECT_EQ(report.session_id, session_b);
  EXPECT_EQ(next->progress.finished.size(), 2u);
  const auto record = f.store()->load(session_b);
  ASSERT_TRUE(record && *record);
  EXPECT_EQ((*record)->session.status, Status::completed);
}

TEST(Batch, ATokenBudgetStopsTheRunningGoalAndStartsNoOther) {
  Fixture f;
  const std::string right = f.model("right", k_right);
  BatchRequest request =
      f.request(Fixture::line("a", {{"model", right}}) + Fixture::line("b", {{"model", right}}) +
                Fixture::line("c", {{"model", right}}));
  request.concurrency = 1;
  request.limits.max_tokens = 1; // the first model call spends it
  RecordingObserver observer;
  const auto end = run_batch(f.runtime, request, observer, f.clock, CancelToken());
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_EQ(end->budget, BudgetKind::tokens);
  EXPECT_FALSE(end->interrupted);
  ASSERT_EQ(observer.goals_started.size(), 1u);
  EXPECT_EQ(observer.goals_started[0].id, "a");
  EXPECT_EQ(observer.goals_stopped, std::vector<std::string>{"a"});
  EXPECT_EQ(end->unfinished, 1);
  EXPECT_EQ(end->not_started, 2);
  EXPECT_GE(end->progress.spend.tokens, 1);
  EXPECT_TRUE(read_lines(observer.started->dir / "results.jsonl").empty());
}

TEST(Batch, ACostBudgetWithoutPricesIsAnErrorBeforeAnythingIsMade) {
  Fixture f;
  BatchRequest request = f.request(Fixture::line("a", {{"model", f.model("right", k_right)}}));
  request.limits.max_cost_usd = 1;
  RecordingObserver observer;
  const auto end = run_batch(f.runtime, request, observer, f.clock, CancelToken());
  ASSERT_FALSE(end);
  EXPECT_EQ(end.error().kind, ErrorKind::config);
  EXPECT_THAT(end.error().message, HasSubstr("goals.jsonl:1: "));
  EXPECT_FALSE(observer.started);
  EXPECT_FALSE(fs::exists(f.workspace / ".ralph" / "batch"));
}

} // namespace
} // namespace ralph::app
