// One heartbeat tick: a task done and judged, the tick lock held by another (skipped, or waited
// for), the events of every tick in one file, and setup mistakes before anything runs.
#include "heartbeat_fixture.h"
#include "store/file_lock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace ralph::app::heartbeat_tests {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* k_due_tasks =
    "# Heartbeat\n- Every check-in: append the line `checked` to status.log.\n";

// Time from a FakeClock; after each sleep `after_sleep` runs, as another process acts meanwhile.
class ActingClock final : public Clock {
public:
  explicit ActingClock(ralph::testing::FakeClock& time) : m_time(time) {}
  time_point now() const override { return m_time.now(); }
  std::chrono::system_clock::time_point wall_now() const override { return m_time.wall_now(); }
  bool sleep_for(milliseconds duration, const CancelToken& cancel) override {
    const bool slept = m_time.sleep_for(duration, cancel);
    if (after_sleep) {
      after_sleep();
    }
    return slept;
  }
  std::function<void()> after_sleep;

private:
  ralph::testing::FakeClock& m_time;
};

// The tick lock held as another process's tick holds it, with its pid written.
std::optional<store::FileLock> hold_lock(const std::filesystem::path& workspace) {
  std::filesystem::create_directories(workspace / ".ralph");
  auto lock = store::FileLock::try_acquire(workspace / ".ralph" / "heartbeat.lock");
  EXPECT_TRUE(lock && *lock);
  if (!lock || !*lock) {
    return std::nullopt;
  }
  EXPECT_TRUE((*lock)->write_holder("4242\n"));
  return std::move(*lock);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(HeartbeatTick, ALazyHeartbeatOkWithATaskDueIsJudgedAndTheTaskDone) {
  HeartbeatFixture f;
  f.write("HEARTBEAT.md", k_due_tasks);
  f.request.config.model = "scripted/" + f.dir
                                             .write("agent.json", R"({"turns": [
    {"text": "HEARTBEAT_OK"},
    {"tool_calls": [{"name": "write_file",
                     "arguments": {"path": "status.log", "content": "checked\n"}}]},
    {"text": "Appended `checked` to status.log."}]})")
                                             .string();
  f.request.config.judge.model = "scripted/" + f.dir
                                                   .write("judge.json", R"({"turns": [
    {"text": "FAIL [goal_missed]: every check-in appends `checked` to status.log; nothing was written"},
    {"text": "PASS"}]})")
                                                   .string();

  const auto end = f.run();
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_EQ(end->exit_code, 0);
  EXPECT_EQ(end->ticks, 1);
  EXPECT_EQ(end->stop, HeartbeatStop::finished);
  ASSERT_EQ(f.observer.finished.size(), 1u);
  const session::SessionReport& report = f.observer.finished[0].report;
  EXPECT_EQ(report.status, Status::completed) << report.reason;
  EXPECT_EQ(report.iterations, 2) << "the lazy answer was failed and fed back";
  EXPECT_TRUE(report.verified);
  EXPECT_EQ(read_file(f.workspace / "status.log"), "checked\n");
  // The goal quotes the tasks; the tick's events reached the sink the observer gave.
  EXPECT_THAT(f.observer.started[0].goal, HasSubstr("append the line `checked` to status.log"));
  EXPECT_THAT(f.observer.started[0].goal, HasSubstr("answer exactly HEARTBEAT_OK"));
  EXPECT_FALSE(f.observer.events.events.empty());
  EXPECT_TRUE(f.clock.sleeps().empty()) << "one tick: no wait";
  const auto sessions = f.sessions();
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0].id, report.session_id);
  EXPECT_EQ(sessions[0].kind, store::SessionKind::heartbeat);
}

TEST(HeartbeatTick, ATickFindingAnotherRunningIsSkippedWithoutASession) {
  HeartbeatFixture f;
  auto held = hold_lock(f.workspace);
  ASSERT_TRUE(held);

  const auto end = f.run();
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_EQ(end->exit_code, 0) << "a skip is no failure";
  EXPECT_EQ(end->ticks, 1);
  ASSERT_EQ(f.observer.skipped.size(), 1u);
  EXPECT_EQ(f.observer.skipped[0].pid, 4242);
  EXPECT_EQ(f.observer.skipped[0].lock, f.workspace / ".ralph" / "heartbeat.lock");
  EXPECT_THAT(f.observer.calls, ElementsAre("skipped 1"));
  EXPECT_TRUE(f.sessions().empty());
}

TEST(HeartbeatTick, AWaitingTickRunsOnceTheRunningOneReleasesTheLock) {
  HeartbeatFixture f;
  f.request.wait = true;
  auto held = hold_lock(f.workspace);
  ASSERT_TRUE(held);
  ActingClock clock(f.clock);
  int polls = 0;
  clock.after_sleep = [&] {
    if (++polls == 3) {
      held.reset(); // the running tick ends
    }
  };

  const auto end = run_heartbeat(f.runtime, f.request, f.observer, clock, CancelToken());
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_EQ(end->exit_code, 0);
  EXPECT_THAT(f.observer.calls,
              ElementsAre("waiting 1", "running tick ended 1", "started 1", "finished 1"));
  ASSERT_EQ(f.observer.waiting.size(), 1u);
  EXPECT_EQ(f.observer.waiting[0].pid, 4242);
  EXPECT_EQ(f.observer.waited_for,
            std::vector<std::chrono::steady_clock::duration>{milliseconds(300)});
  EXPECT_EQ(f.observer.started[0].at, milliseconds(300));
  EXPECT_EQ(f.observer.finished[0].report.status, Status::completed);
  // The lock was this process's while its tick ran, and is free again after it.
  EXPECT_TRUE(read_file(f.workspace / ".ralph" / "heartbeat.lock").empty());
  auto free = store::FileLock::try_acquire(f.workspace / ".ralph" / "heartbeat.lock");
  ASSERT_TRUE(free);
  EXPECT_TRUE(*free);
}

TEST(HeartbeatTick, ACancelWhileWaitingForTheLockEndsWith130WithoutASession) {
  HeartbeatFixture f;
  f.request.wait = true;
  auto held = hold_lock(f.workspace);
  ASSERT_TRUE(held);
  const CancelToken cancel;
  ActingClock clock(f.clock);
  clock.after_sleep = [&] { cancel.cancel(); };

  const auto end = run_heartbeat(f.runtime, f.request, f.observer, clock, cancel);
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_EQ(end->exit_code, 130);
  EXPECT_EQ(end->stop, HeartbeatStop::interrupted_in_tick);
  EXPECT_THAT(f.observer.calls, ElementsAre("waiting 1"));
  EXPECT_TRUE(f.sessions().empty());
}

TEST(HeartbeatTick, EveryTickAppendsItsEventsToTheOneEventsFile) {
  HeartbeatFixture f;
  f.request.every = minutes(1);
  f.request.ticks = 2;
  const std::filesystem::path events = f.dir.write("events.ndjson", "{\"kept\": true}\n");
  f.request.outputs.events_file = events;

  const auto end = f.run();
  ASSERT_TRUE(end) << end.error().message;
  ASSERT_EQ(f.observer.finished.size(), 2u);
  const std::string lines = read_file(events);
  EXPECT_EQ(lines.rfind("{\"kept\": true}\n", 0), 0u) << "appended, not replaced";
  for (const FinishedTick& tick : f.observer.finished) {
    EXPECT_THAT(lines, HasSubstr("\"session\":\"" + tick.report.session_id + "\""));
  }
}

TEST(HeartbeatTick, SetupMistakesAreErrorsBeforeAnythingRuns) {
  HeartbeatFixture f;
  f.request.config.judge.model.clear();
  const auto no_judge = f.run();
  ASSERT_FALSE(no_judge);
  EXPECT_EQ(no_judge.error().kind, ErrorKind::config);
  EXPECT_THAT(no_judge.error().message, HasSubstr("heartbeat verification needs a judge"));
  EXPECT_FALSE(std::filesystem::exists(f.workspace / ".ralph")) << "nothing made or recorded";

  f.request.config.loop.trigger.verify_heartbeat = false; // no judge needed then
  std::filesystem::remove(f.workspace / "HEARTBEAT.md");
  const auto no_tasks = f.run();
  ASSERT_FALSE(no_tasks);
  EXPECT_EQ(no_tasks.error().kind, ErrorKind::usage);
  EXPECT_THAT(no_tasks.error().message, HasSubstr("HEARTBEAT.md: no such file"));
  std::filesystem::create_directory(f.workspace / "HEARTBEAT.md");
  const auto folder = f.run();
  ASSERT_FALSE(folder);
  EXPECT_THAT(folder.error().message, HasSubstr("is a folder, not the tasks file"));
  EXPECT_TRUE(f.observer.calls.empty());
  EXPECT_FALSE(std::filesystem::exists(f.workspace / ".ralph"));
}

} // namespace
} // namespace ralph::app::heartbeat_tests
