#include "mcp/param_headers.h"

#include <gtest/gtest.h>

namespace ralph::mcp {
namespace {

TEST(ParamHeaders, FindsDeclarationsReachedThroughPropertiesOnly) {
  const Json schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "region": {"type": "string", "x-mcp-header": "Region"},
      "target": {"type": "object", "properties": {"id": {"type": "integer", "x-mcp-header": "Id"}}},
      "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Ignored"}}
    }
  })");
  const auto found = param_headers(schema);
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[0].name, "Region");
  EXPECT_EQ(found[0].path, std::vector<std::string>{"region"});
  EXPECT_EQ(found[1].name, "Id");
  EXPECT_EQ(found[1].path, (std::vector<std::string>{"target", "id"}));
}

TEST(ParamHeaders, MirrorsPrimitiveArgumentsOnly) {
  const std::vector<ParamHeader> declared = {
      {"Region", {"region"}}, {"Id", {"target", "id"}}, {"Flag", {"flag"}}, {"Gone", {"gone"}}};
  const auto headers = param_header_values(
      declared, Json::parse(R"({"region":"eu","target":{"id":42},"flag":true,"gone":null})"));
  EXPECT_EQ(headers,
            (http::Headers{
                {"Mcp-Param-Region", "eu"}, {"Mcp-Param-Id", "42"}, {"Mcp-Param-Flag", "true"}}));
}

TEST(ParamHeaders, EncodesValuesThatAreNotPlainAscii) {
  EXPECT_EQ(header_value("eu-west-1"), "eu-west-1");
  EXPECT_EQ(header_value("z\xc3\xbcrich"), "=?base64?esO8cmljaA==?=");
  EXPECT_EQ(header_value(" padded"), "=?base64?IHBhZGRlZA==?=");
  EXPECT_EQ(header_value("a\nb"), "=?base64?YQpi?=");
  EXPECT_EQ(header_value("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");
}

} // namespace
} // namespace ralph::mcp
