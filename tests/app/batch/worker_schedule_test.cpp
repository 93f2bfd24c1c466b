// When a worker claims and renews, as times of its clock.
#include "app/batch/worker_schedule.h"

#include <gtest/gtest.h>

namespace ralph::app {
namespace {

using namespace std::chrono_literals;
using time_point = WorkerSchedule::time_point;

TEST(WorkerSchedule, AClaimThatGetsNothingBacksOffDoublingUpToTwoSecondsAndOneThatGetsSomeDoesNot) {
  WorkerSchedule schedule(time_point(0s), 60s);
  time_point now(0s);
  std::vector<time_point> claims;
  for (int i = 0; i < 7; ++i) {
    ASSERT_TRUE(schedule.claim_due(now));
    schedule.claimed(now, false, true);
    now = schedule.next(false, false);
    claims.push_back(now);
  }
  const std::vector<time_point> backoff{time_point(200ms),  time_point(600ms),  time_point(1400ms),
                                        time_point(3000ms), time_point(5000ms), time_point(7000ms),
                                        time_point(9000ms)};
  EXPECT_EQ(claims, backoff);
  // Goals came: the next claim is at once, and the one after an empty claim waits 200 ms again.
  schedule.claimed(now, true, true);
  EXPECT_EQ(schedule.next(true, false), now);
  schedule.claimed(now, false, false);
  EXPECT_EQ(schedule.next(false, false), now + 200ms);
}

TEST(WorkerSchedule, LeasesAreRenewedEveryThirdOfTheLeaseFromWhenGoalsAreFirstHeld) {
  WorkerSchedule schedule(time_point(0s), 3s);
  // Idle for 10 s, then a claim gets goals: their leases are fresh, renewed a second later.
  schedule.claimed(time_point(10s), true, true);
  EXPECT_FALSE(schedule.renew_due(time_point(10s)));
  EXPECT_TRUE(schedule.renew_due(time_point(11s)));
  schedule.renewed(time_point(11s));
  EXPECT_EQ(schedule.next(true, true), time_point(12s)) << "stopping: only renewals";
  // More goals while holding some do not move the renewals.
  schedule.claimed(time_point(11500ms), true, false);
  EXPECT_FALSE(schedule.renew_due(time_point(11900ms)));
  EXPECT_TRUE(schedule.renew_due(time_point(12s)));
}

} // namespace
} // namespace ralph::app
