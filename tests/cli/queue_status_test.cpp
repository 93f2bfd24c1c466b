#include "cli/queue_status.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::cli {
namespace {

using ::testing::HasSubstr;

TEST(QueueStatusTable, TheBreakdownByStatusHasItsOwnHeadingNotFailedsLines) {
  store::QueueStatus status;
  status.batch = "nightly";
  status.done = 3;
  status.failed = 1;
  status.verified = 3;
  status.statuses = {{"budget_exhausted", 1}, {"completed", 3}};
  const std::string table = queue_status_table(status);
  EXPECT_THAT(table, HasSubstr("  failed                 1\n  verified"));
  EXPECT_THAT(table, HasSubstr("  finished goals by their session's status:\n"
                               "    budget_exhausted     1\n"
                               "    completed            3\n"));
}

TEST(QueueStatusTable, AnUnknownCostIsUnknownNeverZero) {
  store::QueueStatus status;
  status.batch = "nightly";
  status.done = 1;
  status.tokens = 900;
  status.cost_known = false;
  EXPECT_THAT(queue_status_table(status), HasSubstr("  cost" + std::string(14, ' ') + "unknown\n"));
  EXPECT_TRUE(nlohmann::json::parse(queue_status_json(status))["cost_usd"].is_null());
  status.cost_known = true;
  EXPECT_EQ(nlohmann::json::parse(queue_status_json(status))["cost_usd"], 0.0);
}

TEST(QueueWorkersTable, EachWorkerWithItsGoalsHeartbeatAndStaleLeasesAnUnknownAgeUnknown) {
  EXPECT_EQ(queue_workers_table({}), "");
  store::WorkerStatus busy{.name = "host-a:41",
                           .goals = {{.batch = "b", .id = "g1", .lease_until = "t", .stale = false},
                                     {.batch = "b", .id = "g2", .lease_until = "t", .stale = true}},
                           .heartbeat_age_ms = 1250};
  store::WorkerStatus old{.name = "host-b:7",
                          .goals = {{.batch = "b", .id = "g3", .lease_until = "t", .stale = false}},
                          .heartbeat_age_ms = std::nullopt};
  const std::string table = queue_workers_table({busy, old});
  EXPECT_THAT(table, HasSubstr("  host-a:41            2 goal(s)   heartbeat 1.2 s ago   "
                               "(1 with a lease run out)\n"));
  EXPECT_THAT(table, HasSubstr("  host-b:7             1 goal(s)   heartbeat unknown\n"));
}

} // namespace
} // namespace ralph::cli
