#include "ralph/core/json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace ralph {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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

TEST(ParseJson, ANumberTooLargeForADoubleIsAParseErrorNotAnException) {
  const std::vector<std::string> texts = {R"({"usage": {"prompt_tokens": 1e999}})", "-1e999",
                                          std::string(400, '9') + ".5",
                                          "[" + std::string(400, '9') + "]"};
  for (const std::string& text : texts) {
    Result<nlohmann::json> value;
    EXPECT_NO_THROW(value = parse_json(text, "response body")) << text;
    ASSERT_FALSE(value) << text;
    EXPECT_EQ(value.error().kind, ErrorKind::parse);
    EXPECT_THAT(value.error().message, HasSubstr("response body: number out of range near byte"));
  }
}

TEST(ParseJson, AHugeIntegerThatFitsADoubleIsStillANumber) {
  const auto value = parse_json("123456789012345678901234567890", "body");
  ASSERT_TRUE(value);
  EXPECT_TRUE(value->is_number_float());
}

TEST(ParseJson, NestingIsBoundedSoNothingDeepIsEverBuilt) {
  const auto nested = [](std::size_t depth) {
    std::string text;
    for (std::size_t i = 0; i < depth; ++i) {
      text += i % 2 == 0 ? "{\"a\":" : "[";
    }
    text += "1";
    for (std::size_t i = depth; i > 0; --i) {
      text += (i - 1) % 2 == 0 ? "}" : "]";
    }
    return text;
  };
  const auto deepest = parse_json(nested(k_max_json_depth), "tool arguments");
  ASSERT_TRUE(deepest) << deepest.error().message;
  EXPECT_EQ(deepest->dump().size(), nested(k_max_json_depth).size());

  for (const std::size_t depth : {k_max_json_depth + 1, std::size_t{70'000}}) {
    const auto value = parse_json(nested(depth), "tool arguments");
    ASSERT_FALSE(value);
    EXPECT_EQ(value.error().kind, ErrorKind::parse);
    EXPECT_THAT(value.error().message, HasSubstr("tool arguments: JSON nested deeper than 512"));
  }
}

TEST(ParseJson, TheErrorNeverQuotesTheInput) {
  const auto value = parse_json(R"({"key": "sk-secret-123)", "error body");
  ASSERT_FALSE(value);
  EXPECT_THAT(value.error().message, Not(HasSubstr("sk-secret")));
}

TEST(JsonMember, AMemberOfTheWrongTypeReadsAsAbsentNeverAsAThrow) {
  const auto value = parse_json(
      R"({"s":"text","n":7,"f":2.9,"b":true,"a":[1,2],"o":{},"null":null,
          "huge":1e99,"tiny":-1e99,"big":18446744073709551615})",
      "test");
  ASSERT_TRUE(value);
  EXPECT_EQ(string_member(*value, "s"), "text");
  EXPECT_EQ(string_member(*value, "n"), "");
  EXPECT_EQ(string_member(*value, "missing"), "");
  EXPECT_EQ(int_member(*value, "n"), 7);
  EXPECT_EQ(int_member(*value, "f"), 2);
  EXPECT_EQ(int_member(*value, "s"), std::nullopt);
  EXPECT_EQ(int_member(*value, "null"), std::nullopt);
  // A float outside int64's range, or an unsigned above it, converts with undefined behaviour.
  EXPECT_EQ(int_member(*value, "huge"), std::nullopt);
  EXPECT_EQ(int_member(*value, "tiny"), std::nullopt);
  EXPECT_EQ(int_member(*value, "big"), std::nullopt);
  EXPECT_TRUE(bool_member(*value, "b", false));
  EXPECT_TRUE(bool_member(*value, "s", true));
  EXPECT_FALSE(bool_member(*value, "n", false));
  EXPECT_EQ(array_member(*value, "a").size(), 2u);
  EXPECT_TRUE(array_member(*value, "o").empty());
  EXPECT_TRUE(array_member(*value, "missing").empty());
  EXPECT_NE(member(*value, "null"), nullptr);
  EXPECT_EQ(member(*value, "missing"), nullptr);
  // Not an object: everything is absent.
  const auto list = parse_json("[1]", "test");
  ASSERT_TRUE(list);
  EXPECT_EQ(member(*list, "0"), nullptr);
  EXPECT_EQ(string_member(nlohmann::json("x"), "x"), "");
}

TEST(JsonMember, AnIntWithinBoundsIsClampedAndAnAbsentOneIsTheFallback) {
  const auto value = parse_json(R"({"n":-4,"big":9000000000,"f":3.5,"s":"3"})", "test");
  ASSERT_TRUE(value);
  EXPECT_EQ(int_member_or(*value, "n", 9, 0, 10), 0);
  EXPECT_EQ(int_member_or(*value, "big", 9, 0, std::numeric_limits<int>::max()),
            std::numeric_limits<int>::max());
  EXPECT_EQ(int_member_or(*value, "f", 9, 0, 10), 3);
  EXPECT_EQ(int_member_or(*value, "s", 9, 0, 10), 9);
  EXPECT_EQ(int_member_or(*value, "missing", 9, 0, 10), 9);
}

} // namespace
} // namespace ralph
