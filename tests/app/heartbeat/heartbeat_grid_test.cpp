// The heartbeat's schedule on a fake clock: ticks on a grid that their own length does not move,
// slots a long tick overran skipped and said, a cancel between ticks.
#include "heartbeat_fixture.h"

#include "ralph/core/time.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::app::heartbeat_tests {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(HeartbeatGrid, TicksStartOnTheGridNotDriftingByTheirOwnLength) {
  HeartbeatFixture f;
  f.request.every = minutes(10);
  f.request.ticks = 3;
  f.observer.during_tick = [&](const HeartbeatTick&) { f.clock.advance(minutes(1)); };

  const auto end = f.run();
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_EQ(end->exit_code, 0);
  EXPECT_EQ(end->ticks, 3);
  EXPECT_EQ(end->stop, HeartbeatStop::finished);

  ASSERT_EQ(f.observer.started.size(), 3u);
  EXPECT_EQ(f.observer.started[0].at, minutes(0));
  EXPECT_EQ(f.observer.started[1].at, minutes(10));
  EXPECT_EQ(f.observer.started[2].at, minutes(20));
  EXPECT_EQ(f.observer.started[2].tick.number, 3);
  EXPECT_EQ(f.observer.started[2].tick.of, 3);
  EXPECT_THAT(f.clock.sleeps(), ElementsAre(minutes(9), minutes(9)));
  EXPECT_TRUE(f.observer.missed.empty());

  // "Next tick at" and each tick's goal are calendar time moving with the clock.
  ASSERT_EQ(f.observer.next.size(), 2u);
  EXPECT_EQ(iso8601_utc(f.observer.next[0].at), "2026-01-01T00:10:00.000Z");
  EXPECT_EQ(f.observer.next[0].in, minutes(9));
  EXPECT_THAT(f.observer.started[0].goal,
              HasSubstr("a periodic check-in at 2026-01-01T00:00:00.000Z UTC"));
  EXPECT_THAT(f.observer.started[1].goal,
              HasSubstr("a periodic check-in at 2026-01-01T00:10:00.000Z UTC"));

  ASSERT_EQ(f.observer.finished.size(), 3u);
  for (const FinishedTick& tick : f.observer.finished) {
    EXPECT_EQ(tick.report.status, Status::completed) << tick.report.reason;
    EXPECT_TRUE(tick.report.verified) << "the scripted judge passed it";
    EXPECT_EQ(tick.report.answer, "HEARTBEAT_OK");
  }
  const auto sessions = f.sessions();
  ASSERT_EQ(sessions.size(), 3u) << "one session per tick";
  for (const store::SessionRow& row : sessions) {
    EXPECT_EQ(row.kind, store::SessionKind::heartbeat);
  }
}

TEST(HeartbeatGrid, ATickOverrunningTwoSlotsSkipsThemAndTheNextRunsOnTheFollowingSlot) {
  HeartbeatFixture f;
  f.request.every = minutes(10);
  f.request.ticks = 2;
  f.observer.during_tick = [&](const HeartbeatTick& tick) {
    if (tick.number == 1) {
      f.clock.advance(minutes(25)); // two and a half periods
    }
  };

  const auto end = f.run();
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_EQ(end->exit_code, 0);
  EXPECT_EQ(end->ticks, 2);

  ASSERT_EQ(f.observer.missed.size(), 1u);
  EXPECT_EQ(f.observer.missed[0].tick.number, 1);
  EXPECT_EQ(f.observer.missed[0].took, minutes(25));
  EXPECT_EQ(f.observer.missed[0].missed, 2) << "the slots at 10 and 20 minutes";
  ASSERT_EQ(f.observer.next.size(), 1u);
  EXPECT_EQ(f.observer.next[0].in, minutes(5));
  ASSERT_EQ(f.observer.started.size(), 2u);
  EXPECT_EQ(f.observer.started[1].at, minutes(30)) << "on the grid, not 10 minutes after tick 1";
  EXPECT_THAT(f.observer.calls, ElementsAre("started 1", "finished 1", "missed 1", "next",
                                            "started 2", "finished 2"));
}

TEST(HeartbeatGrid, ACancelBetweenTicksEndsWith130AfterTheTicksRun) {
  HeartbeatFixture f;
  f.request.every = minutes(10); // and no bound on the ticks
  const CancelToken cancel;
  f.observer.on_next_tick = [&] { cancel.cancel(); };

  const auto end = f.run(cancel);
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_EQ(end->exit_code, 130);
  EXPECT_EQ(end->ticks, 1);
  EXPECT_EQ(end->stop, HeartbeatStop::interrupted_between_ticks);
  ASSERT_EQ(f.observer.finished.size(), 1u);
  EXPECT_EQ(f.observer.finished[0].report.status, Status::completed);
  EXPECT_EQ(f.sessions().size(), 1u);
}

TEST(HeartbeatGrid, ACancelDuringATickRecordsItInterruptedAndStops) {
  HeartbeatFixture f;
  f.request.every = minutes(10);
  const CancelToken cancel;
  f.observer.during_tick = [&](const HeartbeatTick&) { cancel.cancel(); };

  const auto end = f.run(cancel);
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_EQ(end->exit_code, 130);
  EXPECT_EQ(end->ticks, 1);
  EXPECT_EQ(end->stop, HeartbeatStop::interrupted_in_tick);
  ASSERT_EQ(f.observer.finished.size(), 1u);
  EXPECT_EQ(f.observer.finished[0].report.status, Status::interrupted);
  EXPECT_TRUE(f.observer.next.empty()) << "no next tick is planned";
  const auto sessions = f.sessions();
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0].status, Status::interrupted);
}

TEST(HeartbeatGrid, ATasksFileGoneBetweenTicksIsSaidAndTheNextTickLooksAgain) {
  HeartbeatFixture f;
  f.request.every = minutes(10);
  f.request.ticks = 3;
  // Tick 2 finds HEARTBEAT.md gone (said, not run); tick 3 looks again and finds it back.
  f.observer.during_tick = [&](const HeartbeatTick& tick) {
    if (tick.number == 1) {
      std::filesystem::remove(f.workspace / "HEARTBEAT.md");
    }
  };
  f.observer.on_unreadable = [&] { f.write("HEARTBEAT.md", k_nothing_due); };

  const auto end = f.run();
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_EQ(end->exit_code, 2) << "the last failing tick's";
  EXPECT_EQ(end->ticks, 3);
  EXPECT_THAT(f.observer.calls, ElementsAre("started 1", "finished 1", "next", "unreadable 2",
                                            "next", "started 3", "finished 3"));
  ASSERT_EQ(f.observer.unreadable.size(), 1u);
  EXPECT_EQ(f.observer.unreadable[0].kind, ErrorKind::usage);
  EXPECT_THAT(f.observer.unreadable[0].message, HasSubstr("HEARTBEAT.md: no such file"));
  EXPECT_EQ(f.observer.started[1].at, minutes(20)) << "the grid holds past a tick not run";
  EXPECT_EQ(f.sessions().size(), 2u);
}

} // namespace
} // namespace ralph::app::heartbeat_tests
