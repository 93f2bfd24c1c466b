#include "cli/batch_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

app::BatchProgress progress(app::BatchSpend spend) {
  return app::BatchProgress{
      .batch_id = "b1",
      .goals = 1,
      .finished = {app::GoalResult{.id = "a", .status = Status::completed, .tokens = 120}},
      .spend = spend};
}

TEST(BatchView, AnUnknownCostIsUnknownOnScreenAndNullInJsonNeverZero) {
  const app::BatchProgress unknown = progress({.tokens = 120, .cost_usd = 0, .cost_known = false});
  const app::BatchEnd end{.progress = unknown};
  EXPECT_THAT(summary_table(unknown, end),
              HasSubstr("  cost" + std::string(14, ' ') + "unknown\n"));
  EXPECT_THAT(summary_table(unknown, end), Not(HasSubstr("$0.00")));
  EXPECT_TRUE(nlohmann::json::parse(summary_json(unknown, end))["cost_usd"].is_null());
  EXPECT_THAT(live_lines(unknown, 200).front(), HasSubstr(" · cost unknown"));

  const app::BatchProgress part = progress({.tokens = 120, .cost_usd = 1.5, .cost_known = false});
  EXPECT_THAT(summary_table(part, {.progress = part}),
              HasSubstr("  cost" + std::string(14, ' ') + "≥$1.50\n"));
  EXPECT_TRUE(nlohmann::json::parse(summary_json(part, {.progress = part}))["cost_usd"].is_null());

  const app::BatchProgress priced = progress({.tokens = 120, .cost_usd = 0, .cost_known = true});
  EXPECT_THAT(summary_table(priced, {.progress = priced}),
              HasSubstr("  cost" + std::string(15, ' ') + "$0.00\n"));
  EXPECT_EQ(nlohmann::json::parse(summary_json(priced, {.progress = priced}))["cost_usd"], 0.0);
}

} // namespace
} // namespace ralph::cli
