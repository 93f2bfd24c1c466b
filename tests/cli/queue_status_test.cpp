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

} // namespace
} // namespace ralph::cli
