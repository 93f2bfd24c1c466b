#include "ralph/core/json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

} // namespace
} // namespace ralph
