#include "ralph/core/quantity.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ralph {
namespace {

using namespace std::chrono_literals;

TEST(ParseDuration, BareNumbersAreSeconds) {
  EXPECT_EQ(parse_duration("90"), 90s);
  EXPECT_EQ(parse_duration("1.5"), 1500ms);
  EXPECT_EQ(parse_duration("0"), 0ms);
  EXPECT_EQ(parse_duration(" 90 "), 90s) << "outer spaces, as variables may carry";
}

TEST(ParseDuration, UnitsAndFractions) {
  EXPECT_EQ(parse_duration("90s"), 90s);
  EXPECT_EQ(parse_duration("1.5m"), 90s);
  EXPECT_EQ(parse_duration("10m"), 10min);
  EXPECT_EQ(parse_duration("2h"), 2h);
  EXPECT_EQ(parse_duration("500ms"), 500ms);
  EXPECT_EQ(parse_duration("30d"), 24h * 30);
  EXPECT_EQ(parse_duration("0s"), 0ms);
  EXPECT_EQ(parse_duration("2H"), 2h) << "any case";
}

TEST(ParseDuration, UnitsCombineLargestFirst) {
  EXPECT_EQ(parse_duration("1h30m"), 90min);
  EXPECT_EQ(parse_duration("1m30s"), 90s);
  EXPECT_EQ(parse_duration("1d2h3m4s5ms"), 24h + 2h + 3min + 4s + 5ms);
  EXPECT_FALSE(parse_duration("30m1h")) << "smaller unit first";
  EXPECT_FALSE(parse_duration("1m1m")) << "a unit twice";
}

TEST(ParseDuration, RejectsWhatIsNotADuration) {
  for (const char* bad : {"", " ", "10x", "x", "m", "-5m", "+5m", "1.m", ".5m", "1h 30m", "1e3",
                          "10mm", "5 m", "1.5.2s", "1h30", "99999999999999999d"}) {
    EXPECT_FALSE(parse_duration(bad)) << bad;
  }
}

TEST(ParseDuration, EveryPrefixOfAGoodDurationIsParsedOrRejected) {
  // Byte by byte: a prefix ending in a unit is the sum so far; one ending in a number after a
  // unit (or in a point) is rejected; a bare number is seconds.
  using Expected = std::optional<std::chrono::milliseconds>;
  const std::vector<std::pair<std::string, Expected>> prefixes = {
      {"", std::nullopt},
      {"1", 1s},
      {"1d", 24h},
      {"1d2", std::nullopt},
      {"1d2h", 26h},
      {"1d2h3", std::nullopt},
      {"1d2h3m", 26h + 3min},
      {"1d2h3m4", std::nullopt},
      {"1d2h3m4.", std::nullopt},
      {"1d2h3m4.5", std::nullopt},
      {"1d2h3m4.5s", 26h + 3min + 4500ms},
  };
  for (const auto& [text, expected] : prefixes) {
    EXPECT_EQ(parse_duration(text), expected) << text;
  }
}

TEST(ParseCount, DigitsAndSuffixes) {
  EXPECT_EQ(parse_count("200000"), 200000);
  EXPECT_EQ(parse_count("200k"), 200000);
  EXPECT_EQ(parse_count("200K"), 200000);
  EXPECT_EQ(parse_count("1.5k"), 1500);
  EXPECT_EQ(parse_count("2M"), 2000000);
  EXPECT_EQ(parse_count("2m"), 2000000);
  EXPECT_EQ(parse_count("1.25G"), 1250000000);
  EXPECT_EQ(parse_count("0"), 0);
  EXPECT_EQ(parse_count("1.0"), 1) << "a whole number written with a point";
  EXPECT_EQ(parse_count("9223372036854775807"), INT64_MAX);
}

TEST(ParseCount, RejectsWhatIsNotAWholeCount) {
  for (const char* bad : {"", "k", "1.2345k", "1.5", "-1", "+1", "10x", "1kk", "1 k", "2MB",
                          "9223372036854775808", "10G0", "1e6"}) {
    EXPECT_FALSE(parse_count(bad)) << bad;
  }
}

TEST(ParseUsd, AmountsWithOrWithoutTheSign) {
  EXPECT_EQ(parse_usd("5"), 5.0);
  EXPECT_EQ(parse_usd("0.50"), 0.5);
  EXPECT_EQ(parse_usd("$2"), 2.0);
  for (const char* bad : {"", "$", "-1", "five", "5$", "1e3", "$$1"}) {
    EXPECT_FALSE(parse_usd(bad)) << bad;
  }
}

TEST(ParseInt, TheWholeTextOrNothing) {
  EXPECT_EQ(parse_int("12"), 12);
  EXPECT_EQ(parse_int("-1"), -1);
  EXPECT_EQ(parse_int("0"), 0);
  for (const char* text : {"", " 12", "12 ", "1.5", "12abc", "+3", "2147483648", "1e3"}) {
    EXPECT_EQ(parse_int(text), std::nullopt) << text;
  }
}

} // namespace
} // namespace ralph
