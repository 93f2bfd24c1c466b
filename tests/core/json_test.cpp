#include "ralph/core/json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph {
namespace {

using ::testing::HasSubstr;

TEST(ParseJson, ReturnsTheValue) {
  const auto value = parse_json(R"({"a": [1, 2]})", "test input");
  ASSERT_TRUE(value);
  EXPECT_EQ((*value)["a"][1], 2);
}

TEST(ParseJson, MalformedTextIsAParseErrorNamingWhatAndWhere) {
  const auto value = parse_json(R"({"a": [1, })", "tool arguments");
  ASSERT_FALSE(value);
  EXPECT_EQ(value.error().kind, ErrorKind::parse);
  EXPECT_THAT(value.error().message, HasSubstr("tool arguments"));
  EXPECT_THAT(value.error().message, HasSubstr("near byte 11"));
}

TEST(ParseJson, EmptyTextIsAnError) {
  EXPECT_FALSE(parse_json("", "body"));
}

} // namespace
} // namespace ralph
