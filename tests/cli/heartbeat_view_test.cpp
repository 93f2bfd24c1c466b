#include "cli/heartbeat_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

store::SessionRow tick(int n, Status status, bool verified, std::string answer) {
  store::SessionRow r;
  r.id = "tick-" + std::to_string(n);
  r.kind = store::SessionKind::heartbeat;
  r.status = status;
  r.verified = verified;
  r.answer = std::move(answer);
  r.created_at = "2026-11-24T05:00:00.000Z";
  r.elapsed_ms = 2500;
  return r;
}

OwnerCheck none() {
  return [](const store::SessionRow&) { return false; };
}

TEST(HeartbeatView, ShowsTheRecentTicksOnlyAndCountsThemAll) {
  std::vector<store::SessionRow> rows;
  store::SessionRow run;
  run.id = "a-plain-run";
  rows.push_back(run);
  store::SessionRow stopped = tick(0, Status::interrupted, false, "");
  stopped.reason = "interrupted by Ctrl-C";
  rows.push_back(stopped);
  rows.push_back(tick(1, Status::completed, true, "Appended `checked`.\nsecond line"));
  for (int n = 2; n < 2 + 20; ++n) {
    rows.push_back(tick(n, Status::completed, false, "HEARTBEAT_OK"));
  }
  const std::string text = render_heartbeat_list(rows, none());
  EXPECT_THAT(text, Not(HasSubstr("a-plain-run")));
  EXPECT_THAT(text, HasSubstr("(interrupted by Ctrl-C)"));
  EXPECT_THAT(text, HasSubstr("yes          2.5 s  Appended `checked`."));
  EXPECT_THAT(text, Not(HasSubstr("second line")));
  EXPECT_THAT(text, Not(HasSubstr("tick-21"))) << "only the 20 most recent";
  EXPECT_THAT(text, HasSubstr("22 ticks (20 most recent shown): 1 verified, 20 completed "
                              "unverified, 1 not completed\n"));

  const auto json = nlohmann::json::parse(heartbeat_list_json(rows, none()));
  EXPECT_EQ(json["ticks"].size(), 20u);
  EXPECT_EQ(json["ticks"][0]["status"], "interrupted");
  EXPECT_EQ(json["total"]["ticks"], 22);
  EXPECT_EQ(json["total"]["not_completed"], 1);
}

TEST(HeartbeatView, SaysWhenThereAreNoTicks) {
  EXPECT_EQ(render_heartbeat_list({}, none()),
            "no heartbeat ticks recorded in this workspace (`ralph heartbeat` runs one)\n");
}

} // namespace
} // namespace ralph::cli
