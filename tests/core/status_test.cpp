#include "ralph/core/ids.h"
#include "ralph/core/status.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace ralph {
namespace {

TEST(Status, NamesRoundTripAndExitCodesMatchTheReadme) {
  for (Status s : {Status::active, Status::completed, Status::budget_exhausted, Status::stalled,
                   Status::blocked, Status::interrupted, Status::failed}) {
    EXPECT_EQ(status_from_string(to_string(s)), s);
  }
  EXPECT_FALSE(status_from_string("done"));
  EXPECT_EQ(exit_code(Status::completed), 0);
  EXPECT_EQ(exit_code(Status::failed), 1);
  EXPECT_EQ(exit_code(Status::budget_exhausted), 3);
  EXPECT_EQ(exit_code(Status::blocked), 4);
  EXPECT_EQ(exit_code(Status::stalled), 5);
  EXPECT_EQ(exit_code(Status::interrupted), 130);
}

TEST(SessionId, HasTimeAndRandomPartsAndDoesNotRepeat) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = new_session_id();
    EXPECT_TRUE(std::regex_match(id, std::regex(R"(\d{8}-\d{6}-[0-9a-f]{12})"))) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

} // namespace
} // namespace ralph
