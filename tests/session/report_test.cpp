#include "ralph/core/redactor.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/session/report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::session {
namespace {

loop::LoopResult priced(double cost_usd, bool cost_known) {
  loop::LoopResult result;
  result.usage.input_tokens = 120;
  result.usage.output_tokens = 30;
  result.cost_usd = cost_usd;
  result.cost_known = cost_known;
  return result;
}

// A local model priced at 0 costs $0, which is known; only a missing price makes a cost unknown.
TEST(SessionReportCost, AKnownCostOfZeroIsZeroAndAMissingPriceIsUnknown) {
  const Redactor redactor;
  const SessionReport free = make_report("s", priced(0, true), redactor);
  ASSERT_TRUE(free.cost_usd.has_value()) << "a price of 0 is a price";
  EXPECT_EQ(*free.cost_usd, 0);
  EXPECT_TRUE(report_json(free)["cost_usd"].is_number());

  const SessionReport unpriced = make_report("s", priced(0, false), redactor);
  EXPECT_FALSE(unpriced.cost_usd.has_value());
  EXPECT_TRUE(report_json(unpriced)["cost_usd"].is_null());

  const SessionReport spent = make_report("s", priced(0.25, true), redactor);
  EXPECT_EQ(spent.cost_usd, 0.25);
}

} // namespace
} // namespace ralph::session
