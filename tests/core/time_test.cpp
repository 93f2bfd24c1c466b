#include "ralph/core/time.h"

#include <gtest/gtest.h>

namespace ralph {
namespace {

using namespace std::chrono_literals;

TEST(Iso8601, RoundTripsToTheMillisecond) {
  const auto now = std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
  const std::string text = iso8601_utc(now);
  EXPECT_EQ(text.size(), 24u);
  EXPECT_EQ(parse_iso8601_utc(text), now);
}

TEST(Iso8601, AcceptsWholeSecondsAndRejectsOtherForms) {
  EXPECT_TRUE(parse_iso8601_utc("2026-11-23T10:15:00Z"));
  EXPECT_FALSE(parse_iso8601_utc("2026-11-23 10:15:00"));
  EXPECT_FALSE(parse_iso8601_utc("2026-13-01T00:00:00Z"));
  EXPECT_FALSE(parse_iso8601_utc("yesterday"));
  EXPECT_FALSE(parse_iso8601_utc(""));
}

TEST(ShortAge, LargestUnitThatFits) {
  EXPECT_EQ(short_age(42s), "42s");
  EXPECT_EQ(short_age(5min + 30s), "5m");
  EXPECT_EQ(short_age(3h), "3h");
  EXPECT_EQ(short_age(24h * 12), "12d");
  EXPECT_EQ(short_age(-5s), "0s");
}

} // namespace
} // namespace ralph
