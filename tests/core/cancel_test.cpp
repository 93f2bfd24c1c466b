#include "support/fake_clock.h"

#include "ralph/core/cancel.h"

#include <gtest/gtest.h>

namespace ralph {
namespace {

TEST(CancelToken, CopiesShareTheFlag) {
  CancelToken token;
  const CancelToken copy = token;
  EXPECT_FALSE(copy.cancelled());
  token.cancel();
  EXPECT_TRUE(copy.cancelled());
}

TEST(CancelToken, ChildFollowsItsParentButNotTheOtherWayRound) {
  CancelToken parent;
  const CancelToken child = parent.child();
  child.cancel();
  EXPECT_TRUE(child.cancelled());
  EXPECT_FALSE(parent.cancelled());

  const CancelToken second = parent.child();
  const CancelToken grandchild = second.child();
  parent.cancel();
  EXPECT_TRUE(second.cancelled());
  EXPECT_TRUE(grandchild.cancelled());
  EXPECT_FALSE(grandchild.deadline_passed());
}

TEST(CancelToken, PassedDeadlineCancelsAndSaysSo) {
  const CancelToken root;
  const CancelToken expired = root.child(std::chrono::steady_clock::now());
  EXPECT_TRUE(expired.cancelled());
  EXPECT_TRUE(expired.deadline_passed());
  EXPECT_FALSE(root.cancelled());
  const CancelToken later = root.child(std::chrono::steady_clock::now() + std::chrono::hours(1));
  EXPECT_FALSE(later.cancelled());
  EXPECT_FALSE(later.deadline_passed());
}

TEST(CancelToken, DeadlineOnAGivenClockPassesWhenThatClockSaysSo) {
  testing::FakeClock clock;
  const CancelToken root;
  const CancelToken token = root.child(clock.now() + std::chrono::minutes(10), clock);
  EXPECT_FALSE(token.cancelled());
  clock.advance(std::chrono::minutes(9));
  EXPECT_FALSE(token.cancelled());
  clock.advance(std::chrono::minutes(1));
  EXPECT_TRUE(token.cancelled());
  EXPECT_TRUE(token.deadline_passed());
  EXPECT_TRUE(token.child().cancelled());
  EXPECT_FALSE(root.cancelled());
}

} // namespace
} // namespace ralph
