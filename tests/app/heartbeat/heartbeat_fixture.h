#pragma once

// What the heartbeat tests share: a workspace with HEARTBEAT.md, scripted agent and judge models,
// and an observer that records every call (and can act inside one, as time passing in a tick).
#include "support/fake_clock.h"
#include "support/recording_sink.h"
#include "support/temp_dir.h"

#include "ralph/app/heartbeat/heartbeat.h"
#include "ralph/session/record.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace ralph::app::heartbeat_tests {

using std::chrono::milliseconds;
using std::chrono::minutes;

constexpr const char* k_nothing_due =
    "# Heartbeat\n- On 1 January only: send the yearly report (skip on any other day).\n";
constexpr const char* k_ok_script = R"({"turns": [{"text": "HEARTBEAT_OK"}]})";
constexpr const char* k_pass_script = R"({"turns": [{"text": "Nothing is due.\nPASS"}]})";

struct StartedTick {
  HeartbeatTick tick;
  std::chrono::steady_clock::duration at; // on the fake clock
  std::string goal;
};
struct FinishedTick {
  HeartbeatTick tick;
  session::SessionReport report;
};
struct MissedTicks {
  HeartbeatTick tick;
  std::chrono::steady_clock::duration took;
  std::int64_t missed = 0;
};
struct NextTick {
  std::chrono::system_clock::time_point at;
  std::chrono::steady_clock::duration in;
};

// Every call kept; `during_tick`, `on_next_tick`, `on_waiting` and `on_unreadable` act inside
// their call when set.
class RecordingObserver final : public HeartbeatObserver {
public:
  explicit RecordingObserver(const Clock& clock) : m_clock(clock) {}

  EventSink& tick_started(const HeartbeatTick& tick, const session::Session& session) override {
    calls.push_back("started " + std::to_string(tick.number));
    started.push_back(
        {.tick = tick, .at = m_clock.now().time_since_epoch(), .goal = session.request().goal});
    if (during_tick) {
      during_tick(tick);
    }
    return events;
  }
  void tick_finished(const HeartbeatTick& tick, const session::SessionReport& report) override {
    calls.push_back("finished " + std::to_string(tick.number));
    finished.push_back({.tick = tick, .report = report});
  }
  void tick_skipped(const HeartbeatTick& tick, const LockHolder& holder) override {
    calls.push_back("skipped " + std::to_string(tick.number));
    skipped.push_back(holder);
  }
  void waiting_for_running_tick(const HeartbeatTick& tick, const LockHolder& holder) override {
    calls.push_back("waiting " + std::to_string(tick.number));
    waiting.push_back(holder);
    if (on_waiting) {
      on_waiting();
    }
  }
  void running_tick_ended(const HeartbeatTick& tick,
                          std::chrono::steady_clock::duration waited) override {
    calls.push_back("running tick ended " + std::to_string(tick.number));
    waited_for.push_back(waited);
  }
  void tasks_unreadable(const HeartbeatTick& tick, const Error& error) override {
    calls.push_back("unreadable " + std::to_string(tick.number));
    unreadable.push_back(error);
    if (on_unreadable) {
      on_unreadable();
    }
  }
  void ticks_missed(const HeartbeatTick& tick, std::chrono::steady_clock::duration took,
                    std::int64_t count) override {
    calls.push_back("missed " + std::to_string(tick.number));
    missed.push_back({.tick = tick, .took = took, .missed = count});
  }
  void next_tick(std::chrono::system_clock::time_point at,
                 std::chrono::steady_clock::duration in) override {
    calls.push_back("next");
    next.push_back({.at = at, .in = in});
    if (on_next_tick) {
      on_next_tick();
    }
  }

  std::function<void(const HeartbeatTick&)> during_tick;
  std::function<void()> on_next_tick;
  std::function<void()> on_waiting;
  std::function<void()> on_unreadable;

  ralph::testing::RecordingSink events;
  std::vector<std::string> calls;
  std::vector<StartedTick> started;
  std::vector<FinishedTick> finished;
  std::vector<LockHolder> skipped;
  std::vector<LockHolder> waiting;
  std::vector<std::chrono::steady_clock::duration> waited_for;
  std::vector<Error> unreadable;
  std::vector<MissedTicks> missed;
  std::vector<NextTick> next;

private:
  const Clock& m_clock;
};

// A workspace with HEARTBEAT.md, its request on scripted models (each tick's session plays its
// script from the start), and a runtime with an empty environment.
struct HeartbeatFixture {
  ralph::testing::TempDir dir;
  std::filesystem::path workspace = dir.path() / "work";
  session::Runtime runtime{session::Environment::of({})};
  ralph::testing::FakeClock clock;
  RecordingObserver observer{clock};
  HeartbeatRequest request;

  HeartbeatFixture() {
    std::filesystem::create_directories(workspace);
    write("HEARTBEAT.md", k_nothing_due);
    request.workspace = workspace;
    request.config = heartbeat_defaults();
    request.config.model = "scripted/" + dir.write("agent.json", k_ok_script).string();
    request.config.judge.model = "scripted/" + dir.write("judge.json", k_pass_script).string();
  }

  void write(const std::string& relative, const std::string& text) const {
    dir.write("work/" + relative, text);
  }

  Result<HeartbeatEnd> run(const CancelToken& cancel = CancelToken()) {
    return run_heartbeat(runtime, request, observer, clock, cancel);
  }

  // The sessions recorded in the workspace's store.
  std::vector<store::SessionRow> sessions() const {
    auto store = session::open_store(request.config, workspace);
    EXPECT_TRUE(store) << store.error().message;
    if (!store) {
      return {};
    }
    auto rows = (*store)->list_sessions();
    EXPECT_TRUE(rows) << rows.error().message;
    return rows ? *rows : std::vector<store::SessionRow>{};
  }
};

} // namespace ralph::app::heartbeat_tests
