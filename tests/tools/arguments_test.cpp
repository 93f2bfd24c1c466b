#include "tools/arguments.h"

#include <gtest/gtest.h>

namespace ralph::tools {
namespace {

Arguments parse(std::string_view json) {
  auto args = Arguments::parse(json);
  EXPECT_TRUE(args.has_value()) << json;
  return std::move(*args);
}

TEST(Arguments, MalformedJsonIsAnErrorThatShowsTheExpectedShape) {
  const auto args = Arguments::parse(R"({"path": "a.txt")");
  ASSERT_FALSE(args.has_value());
  EXPECT_NE(args.error().message.find("invalid arguments"), std::string::npos);
  EXPECT_NE(args.error().message.find("malformed JSON"), std::string::npos);
  EXPECT_NE(args.error().message.find("one JSON object"), std::string::npos);
}

TEST(Arguments, NonObjectJsonIsAnError) {
  EXPECT_FALSE(Arguments::parse("[1, 2]").has_value());
  EXPECT_FALSE(Arguments::parse("\"path\"").has_value());
}

TEST(Arguments, EmptyTextCountsAsAnEmptyObject) {
  EXPECT_FALSE(parse("").string("path")->has_value());
  EXPECT_FALSE(parse("  \n").string("path")->has_value());
}

TEST(Arguments, RequiredStringNamesTheMissingKey) {
  const auto value = parse("{}").required_string("command");
  ASSERT_FALSE(value.has_value());
  EXPECT_NE(value.error().message.find("`command` is required"), std::string::npos);
}

TEST(Arguments, WrongTypeNamesKeyExpectedTypeAndValue) {
  const auto value = parse(R"({"path": 42})").string("path");
  ASSERT_FALSE(value.has_value());
  EXPECT_NE(value.error().message.find("`path` must be a string, not number 42"), std::string::npos)
      << value.error().message;
}

TEST(Arguments, NullMeansNotGiven) {
  EXPECT_FALSE(parse(R"({"limit": null})").integer("limit")->has_value());
}

TEST(Arguments, IntegersAcceptWholeFloatsAndNumericStrings) {
  EXPECT_EQ(*parse(R"({"n": 12})").integer("n"), 12);
  EXPECT_EQ(*parse(R"({"n": 12.0})").integer("n"), 12);
  EXPECT_EQ(*parse(R"({"n": "12"})").integer("n"), 12);
  EXPECT_FALSE(parse(R"({"n": 1.5})").integer("n").has_value());
  EXPECT_FALSE(parse(R"({"n": "twelve"})").integer("n").has_value());
  EXPECT_FALSE(parse(R"({"n": 1e300})").integer("n").has_value());
}

TEST(Arguments, NumbersAcceptNumericStrings) {
  EXPECT_DOUBLE_EQ(**parse(R"({"t": 2.5})").number("t"), 2.5);
  EXPECT_DOUBLE_EQ(**parse(R"({"t": "30"})").number("t"), 30.0);
  EXPECT_FALSE(parse(R"({"t": "30s"})").number("t").has_value());
}

TEST(Arguments, BooleansAcceptTrueAndFalseStrings) {
  EXPECT_EQ(*parse(R"({"b": true})").boolean("b"), true);
  EXPECT_EQ(*parse(R"({"b": "false"})").boolean("b"), false);
  EXPECT_FALSE(parse(R"({"b": 1})").boolean("b").has_value());
}

} // namespace
} // namespace ralph::tools
