#include "ralph/verify/json_schema.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ralph::verify {
namespace {

using nlohmann::json;
using Errors = std::vector<std::string>;

JsonSchema compile(std::string_view text) {
  auto schema = JsonSchema::compile(text);
  if (!schema) {
    ADD_FAILURE() << schema.error().message;
    return *JsonSchema::compile("true");
  }
  return *schema;
}

Errors errors(std::string_view schema, std::string_view value) {
  return compile(schema).validate(json::parse(value));
}

std::string compile_error(std::string_view text) {
  auto schema = JsonSchema::compile(text);
  if (schema) {
    ADD_FAILURE() << "compiled: " << text;
    return {};
  }
  EXPECT_EQ(schema.error().kind, ErrorKind::config);
  return schema.error().message;
}

TEST(JsonSchema, ChecksTypes) {
  EXPECT_EQ(errors(R"({"type": "string"})", R"("x")"), Errors{});
  EXPECT_EQ(errors(R"({"type": "string"})", "42"),
            Errors{"(root): expected a string, found an integer"});
  EXPECT_EQ(errors(R"({"type": ["string", "null"]})", "null"), Errors{});
  EXPECT_EQ(errors(R"({"type": ["string", "array", "null"]})", "1.5"),
            Errors{"(root): expected a string, an array or null, found a number"});
  EXPECT_EQ(errors(R"({"type": "integer"})", "2.0"), Errors{});
  EXPECT_EQ(errors(R"({"type": "integer"})", "2.5"),
            Errors{"(root): expected an integer, found a number"});
  EXPECT_EQ(errors(R"({"type": "number"})", "7"), Errors{});
  EXPECT_EQ(errors(R"({"type": "object"})", "[]"),
            Errors{"(root): expected an object, found an array"});
  EXPECT_EQ(errors(R"({"type": "boolean"})", "false"), Errors{});
}

TEST(JsonSchema, NamesThePointerOfTheFailingValue) {
  const std::string schema = R"({
    "type": "object",
    "properties": {"items": {"type": "array", "items": {
      "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}})";
  EXPECT_EQ(errors(schema, R"({"items": [{"name": "a"}, {"name": "b"}, {"name": 3}, {}]})"),
            (Errors{"/items/2/name: expected a string, found an integer",
                    "/items/3: missing required property \"name\""}));
}

TEST(JsonSchema, EscapesPointerTokens) {
  EXPECT_EQ(errors(R"({"properties": {"a/b~c": {"type": "string"}}})", R"({"a/b~c": 1})"),
            Errors{"/a~1b~0c: expected a string, found an integer"});
}

TEST(JsonSchema, ChecksAdditionalProperties) {
  EXPECT_EQ(
      errors(R"({"properties": {"a": {}}, "additionalProperties": false})", R"({"a": 1, "b": 2})"),
      Errors{"/b: unexpected property (additionalProperties is false)"});
  EXPECT_EQ(errors(R"({"properties": {"a": {}}, "additionalProperties": {"type": "integer"}})",
                   R"({"a": "x", "b": 2, "c": "y"})"),
            Errors{"/c: expected an integer, found a string"});
}

TEST(JsonSchema, ChecksArrays) {
  EXPECT_EQ(errors(R"({"minItems": 2, "maxItems": 3})", "[1]"),
            Errors{"(root): expected at least 2 items, found 1"});
  EXPECT_EQ(errors(R"({"minItems": 2, "maxItems": 3})", "[1, 2, 3, 4]"),
            Errors{"(root): expected at most 3 items, found 4"});
  EXPECT_EQ(errors(R"({"uniqueItems": true})", R"([1, {"a": 1}, 2, {"a": 1}])"),
            Errors{"(root): expected unique items, but items 1 and 3 are equal"});
  EXPECT_EQ(errors(R"({"uniqueItems": true})", R"([1, 1.5, "1"])"), Errors{});
  EXPECT_EQ(errors(R"({"items": [{"type": "string"}, {"type": "integer"}]})", R"(["a", "b", 3])"),
            Errors{"/1: expected an integer, found a string"});
}

TEST(JsonSchema, ChecksStrings) {
  EXPECT_EQ(errors(R"({"minLength": 3})", R"("äö")"),
            Errors{"(root): expected at least 3 characters, found 2"});
  EXPECT_EQ(errors(R"({"maxLength": 3})", R"("äöü")"), Errors{});
  EXPECT_EQ(errors(R"({"maxLength": 2})", R"("äöü")"),
            Errors{"(root): expected at most 2 characters, found 3"});
  EXPECT_EQ(errors(R"({"pattern": "^[a-z]+$"})", R"("abc")"), Errors{});
  EXPECT_EQ(errors(R"({"pattern": "^[a-z]+$"})", R"("Abc")"),
            Errors{"(root): expected a match for the pattern `^[a-z]+$`, found \"Abc\""});
  EXPECT_EQ(errors(R"({"pattern": "b"})", R"("abc")"), Errors{}); // unanchored
}

TEST(JsonSchema, ChecksNumbers) {
  EXPECT_EQ(errors(R"({"minimum": 1, "maximum": 5})", "5"), Errors{});
  EXPECT_EQ(errors(R"({"minimum": 1, "maximum": 5})", "0.5"),
            Errors{"(root): expected at least 1, found 0.5"});
  EXPECT_EQ(errors(R"({"minimum": 1, "maximum": 5})", "6"),
            Errors{"(root): expected at most 5, found 6"});
  EXPECT_EQ(errors(R"({"exclusiveMinimum": 1, "exclusiveMaximum": 5})", "1"),
            Errors{"(root): expected more than 1, found 1"});
  EXPECT_EQ(errors(R"({"exclusiveMinimum": 1, "exclusiveMaximum": 5})", "5"),
            Errors{"(root): expected less than 5, found 5"});
  EXPECT_EQ(errors(R"({"minimum": 1, "exclusiveMinimum": true})", "1"),
            Errors{"(root): expected more than 1, found 1"});
}

TEST(JsonSchema, ChecksEnumAndConst) {
  EXPECT_EQ(errors(R"({"enum": ["red", "green", 3]})", "3"), Errors{});
  EXPECT_EQ(errors(R"({"enum": ["red", "green"]})", R"("blue")"),
            Errors{"(root): expected one of [\"red\",\"green\"], found \"blue\""});
  EXPECT_EQ(errors(R"({"const": {"a": [1]}})", R"({"a": [1]})"), Errors{});
  EXPECT_EQ(errors(R"({"const": 1})", "2"), Errors{"(root): expected 1, found 2"});
}

TEST(JsonSchema, ChecksCombinators) {
  const std::string any = R"({"anyOf": [{"type": "string"}, {"type": "integer"}]})";
  EXPECT_EQ(errors(any, "1"), Errors{});
  EXPECT_EQ(errors(any, "null"),
            Errors{"(root): matches none of the 2 anyOf schemas (the first says: (root): "
                   "expected a string, found null)"});
  const std::string one = R"({"oneOf": [{"type": "integer"}, {"minimum": 0}]})";
  EXPECT_EQ(errors(one, "-1"), Errors{});
  EXPECT_EQ(errors(one, "1"),
            Errors{"(root): matches 2 of the oneOf schemas, expected exactly one"});
  EXPECT_EQ(errors(R"({"allOf": [{"minimum": 0}, {"maximum": 1}]})", "2"),
            Errors{"(root): expected at most 1, found 2"});
  EXPECT_EQ(errors(R"({"not": {"type": "null"}})", "null"),
            Errors{"(root): must not match the schema under `not`"});
  EXPECT_EQ(errors("false", "1"), Errors{"(root): no value is allowed here"});
}

TEST(JsonSchema, FollowsLocalReferences) {
  const std::string schema = R"({
    "definitions": {"name": {"type": "string", "minLength": 1}},
    "$defs": {"node": {"type": "object", "properties": {
      "name": {"$ref": "#/definitions/name"},
      "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
    "$ref": "#/$defs/node"})";
  EXPECT_EQ(errors(schema, R"({"name": "a", "children": [{"name": "b", "children": []}]})"),
            Errors{});
  EXPECT_EQ(
      errors(schema, R"({"name": "a", "children": [{"name": "", "children": [{"name": 1}]}]})"),
      (Errors{"/children/0/children/0/name: expected a string, found an integer",
              "/children/0/name: expected at least 1 characters, found 0"}));
}

TEST(JsonSchema, StopsAReferenceCycleThatConsumesNothing) {
  const Errors found =
      errors(R"({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})", "1");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("recurses too deeply"), std::string::npos);
}

TEST(JsonSchema, IgnoresUnknownKeywords) {
  EXPECT_EQ(errors(R"({"$schema": "x", "title": "t", "format": "email", "multipleOf": 7,
                       "patternProperties": {"x": false}})",
                   R"({"x": 1})"),
            Errors{});
}

TEST(JsonSchema, StopsAtTheErrorLimit) {
  const JsonSchema schema = compile(R"({"items": {"type": "string"}})");
  EXPECT_EQ(schema.validate(json::parse("[1, 2, 3, 4, 5]"), 2).size(), 2u);
  EXPECT_EQ(schema.validate(json::parse("[1, 2, 3, 4, 5]"), 0).size(), 1u);
}

TEST(JsonSchema, RejectsBrokenSchemasUpFront) {
  EXPECT_NE(compile_error("{nope").find("malformed JSON"), std::string::npos);
  EXPECT_NE(compile_error("[1]").find("(root): a schema must be an object or a boolean"),
            std::string::npos);
  EXPECT_NE(compile_error(R"({"properties": {"a": {"type": "text"}}})")
                .find("/properties/a/type: expected a type name"),
            std::string::npos);
  EXPECT_NE(compile_error(R"({"pattern": "(unclosed"})")
                .find("/pattern: invalid regular expression `(unclosed`: missing )"),
            std::string::npos);
  EXPECT_NE(compile_error(R"({"$ref": "#/definitions/missing"})").find("/$ref: cannot resolve"),
            std::string::npos);
  EXPECT_NE(compile_error(R"({"$ref": "http://example.com/schema"})").find("cannot resolve"),
            std::string::npos);
  EXPECT_NE(compile_error(R"({"minItems": -1})").find("/minItems: expected a non-negative"),
            std::string::npos);
  EXPECT_NE(compile_error(R"({"anyOf": []})").find("/anyOf: expected a non-empty array"),
            std::string::npos);
  EXPECT_NE(compile_error(R"({"required": [1]})").find("/required:"), std::string::npos);
  EXPECT_NE(compile_error(R"({"items": {"not": 3}})").find("/items/not: a schema must be"),
            std::string::npos);
}

} // namespace
} // namespace ralph::verify
