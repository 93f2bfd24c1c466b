#include "ralph/core/error.h"
#include "ralph/core/try.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace ralph {
namespace {

Result<int> number(bool ok, int value) {
  if (!ok) {
    return fail(ErrorKind::parse, "not a number");
  }
  return value;
}

Result<void> check(bool ok) {
  if (!ok) {
    return fail(ErrorKind::io, "unreadable");
  }
  return {};
}

Result<int> sum(bool first_ok, bool second_ok, int& reached) {
  TRY_ASSIGN(const int first, number(first_ok, 2));
  reached = 1;
  int second = 0;
  TRY_ASSIGN(second, number(second_ok, 3));
  reached = 2;
  return first + second;
}

Result<std::string> checked(bool ok, int& reached) {
  TRY(check(ok));
  TRY(number(ok, 1)); // a value that is not needed
  reached = 1;
  return std::string("fine");
}

TEST(Try, PassesValuesOnAndStopsAtTheFirstError) {
  int reached = 0;
  EXPECT_EQ(sum(true, true, reached), 5);
  EXPECT_EQ(reached, 2);

  reached = 0;
  const auto early = sum(false, true, reached);
  ASSERT_FALSE(early);
  EXPECT_EQ(early.error().kind, ErrorKind::parse);
  EXPECT_EQ(reached, 0);

  const auto late = sum(true, false, reached);
  ASSERT_FALSE(late);
  EXPECT_EQ(reached, 1);
}

TEST(Try, PropagatesTheErrorIntoAnotherResultType) {
  int reached = 0;
  EXPECT_EQ(checked(true, reached), std::string("fine"));
  EXPECT_EQ(reached, 1);
  reached = 0;
  const auto failed = checked(false, reached);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().kind, ErrorKind::io);
  EXPECT_EQ(failed.error().message, "unreadable");
  EXPECT_EQ(reached, 0);
}

TEST(Try, MovesMoveOnlyValues) {
  const auto make = []() -> Result<std::unique_ptr<int>> { return std::make_unique<int>(7); };
  const auto use = [&]() -> Result<int> {
    TRY_ASSIGN(auto owned, make());
    return *owned;
  };
  EXPECT_EQ(use(), 7);
}

} // namespace
} // namespace ralph
