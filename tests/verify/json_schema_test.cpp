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
  EXPECT_NE(found[0].find("refers back to itself"), std::string::npos) << found[0];
}

TEST(JsonSchema, AnUndecidableValueNeverPasses) {
  // Under `not`, a cycle that merely failed would make the whole schema pass.
  EXPECT_EQ(errors(R"({"not": {"$ref": "#"}})", "1"),
            Errors{"(root): the schema refers back to itself without consuming any of the value, "
                   "so it can never be decided"});
}

TEST(JsonSchema, StaysLinearOnASelfReferencingAnyOf) {
  // Each level offers two ways to the same schema: 2^40 evaluations without remembering results,
  // which the step budget would stop with an error.
  const JsonSchema branching = compile(
      R"({"type": ["array", "integer"], "items": {"anyOf": [{"$ref": "#"}, {"$ref": "#"}]}})");
  json nested = 1;
  json broken = "x";
  std::string pointer;
  for (int i = 0; i < 40; ++i) {
    nested = json::array({nested});
    broken = json::array({broken});
    pointer += "/0";
  }
  EXPECT_EQ(branching.validate(nested), Errors{});
  const Errors found = branching.validate(broken);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rfind("/0: matches none of the 2 anyOf schemas", 0), 0u) << found[0];
  EXPECT_NE(found[0].find(pointer + ": expected an array or an integer, found a string"),
            std::string::npos)
      << found[0];
  // Without consuming anything: found as a cycle at once, not after 2^128 tries.
  const Errors cycle = errors(R"({"anyOf": [{"$ref": "#"}, {"$ref": "#"}]})", "1");
  ASSERT_EQ(cycle.size(), 1u);
  EXPECT_NE(cycle[0].find("refers back to itself"), std::string::npos) << cycle[0];
}

TEST(JsonSchema, StopsAtTheStepBudget) {
  // Eleven steps an item (the item schema and its ten empty ones): 1.1 million for 100000 items.
  const JsonSchema schema =
      compile(R"({"items": {"allOf": [{}, {}, {}, {}, {}, {}, {}, {}, {}, {}]}})");
  const Errors found = schema.validate(json(std::vector<int>(100'000, 0)));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("checking stopped after 1000000 steps"), std::string::npos) << found[0];
  EXPECT_EQ(schema.validate(json(std::vector<int>(1000, 0))), Errors{});
}

TEST(JsonSchema, AppliesTheRestOfTheDraft7Vocabulary) {
  EXPECT_EQ(errors(R"({"multipleOf": 0.01})", "0.07"), Errors{});
  EXPECT_EQ(errors(R"({"multipleOf": 3})", "10"),
            Errors{"(root): expected a multiple of 3, found 10"});
  EXPECT_EQ(errors(R"({"minProperties": 2})", R"({"a": 1})"),
            Errors{"(root): expected at least 2 properties, found 1"});
  EXPECT_EQ(errors(R"({"maxProperties": 1})", R"({"a": 1, "b": 2})"),
            Errors{"(root): expected at most 1 properties, found 2"});
  EXPECT_EQ(errors(R"({"patternProperties": {"^x-": {"type": "string"}},
                       "additionalProperties": false})",
                   R"({"x-a": "ok", "x-b": 2, "y": 3})"),
            (Errors{"/x-b: expected a string, found an integer",
                    "/y: unexpected property (additionalProperties is false)"}));
  EXPECT_EQ(errors(R"({"contains": {"type": "string"}})", R"([1, "a"])"), Errors{});
  EXPECT_EQ(errors(R"({"contains": {"type": "string"}})", "[1]"),
            Errors{"(root): expected an item matching `contains`, found none (the first says: "
                   "/0: expected a string, found an integer)"});
  EXPECT_EQ(errors(R"({"items": [{"type": "integer"}], "additionalItems": false})", "[1, 2]"),
            Errors{"/1: unexpected item (additionalItems is false)"});
  EXPECT_EQ(errors(R"({"dependencies": {"card": ["billing"], "vip": {"required": ["level"]}}})",
                   R"({"card": 1, "vip": true})"),
            (Errors{"(root): missing property \"billing\", required when \"card\" is present",
                    "(root): missing required property \"level\""}));
  EXPECT_EQ(errors(R"({"propertyNames": {"maxLength": 3}})", R"({"abcd": 1})"),
            Errors{"/abcd: the property name breaks propertyNames (/abcd: expected at most 3 "
                   "characters, found 4)"});
  const std::string conditional =
      R"({"if": {"minimum": 10}, "then": {"multipleOf": 10}, "else": {"maximum": 5}})";
  EXPECT_EQ(errors(conditional, "20"), Errors{});
  EXPECT_EQ(errors(conditional, "15"), Errors{"(root): expected a multiple of 10, found 15"});
  EXPECT_EQ(errors(conditional, "7"), Errors{"(root): expected at most 5, found 7"});
}

TEST(JsonSchema, KeepsAnnotationsAsAnnotations) {
  EXPECT_EQ(errors(R"({"$schema": "http://json-schema.org/draft-07/schema#", "title": "t",
                       "description": "d", "$comment": "c", "default": 1, "examples": [1],
                       "contentMediaType": "application/json", "x-vendor": {"anything": true}})",
                   R"("not json")"),
            Errors{});
}

TEST(JsonSchema, ChecksFormats) {
  EXPECT_EQ(errors(R"({"format": "email"})", R"("joe@example.com")"), Errors{});
  EXPECT_EQ(errors(R"({"format": "email"})", R"("not an email")"),
            Errors{"(root): expected a string of format email, found \"not an email\""});
  EXPECT_EQ(errors(R"({"format": "email"})", "42"), Errors{}); // formats apply to strings only
  EXPECT_EQ(errors(R"({"format": "date-time"})", R"("2024-02-29T23:59:60.5+01:00")"), Errors{});
  EXPECT_EQ(errors(R"({"format": "date"})", R"("2023-02-29")").size(), 1u);
  EXPECT_EQ(errors(R"({"format": "ipv4"})", R"("10.0.0.256")").size(), 1u);
  EXPECT_EQ(errors(R"({"format": "ipv6"})", R"("fe80::1")"), Errors{});
  EXPECT_EQ(errors(R"({"format": "uri"})", R"("https://example.com/a?b#c")"), Errors{});
  EXPECT_EQ(errors(R"({"format": "uri"})", R"("/relative")").size(), 1u);
  EXPECT_EQ(errors(R"({"format": "uuid"})", R"("123e4567-e89b-12d3-a456-426614174000")"), Errors{});
  EXPECT_EQ(errors(R"({"format": "hostname"})", R"("-bad.example")").size(), 1u);
  EXPECT_NE(compile_error(R"({"format": "phone"})")
                .find("/format: ralph cannot check the format \"phone\""),
            std::string::npos);
}

TEST(JsonSchema, IgnoresKeywordsBesideARef) {
  // Draft 7: a $ref stands for the schema it names; maxItems beside it does not apply.
  EXPECT_EQ(errors(R"({"definitions": {"list": {"type": "array"}},
                       "properties": {"a": {"$ref": "#/definitions/list", "maxItems": 1}}})",
                   R"({"a": [1, 2, 3]})"),
            Errors{});
}

TEST(JsonSchema, DecodesEscapesInReferencePointers) {
  const std::string schema = R"({"definitions": {"per%cent": {"type": "integer"},
                                                 "sl/ash": {"type": "string"}},
    "properties": {"a": {"$ref": "#/definitions/per%25cent"},
                   "b": {"$ref": "#/definitions/sl~1ash"}}})";
  EXPECT_EQ(errors(schema, R"({"a": "x", "b": 1})"),
            (Errors{"/a: expected an integer, found a string",
                    "/b: expected a string, found an integer"}));
}

TEST(JsonSchema, ResolvesIdsAgainstTheirBase) {
  const std::string schema = R"({"$id": "http://example.com/root.json",
    "definitions": {
      "a": {"$id": "#named", "type": "integer"},
      "b": {"$id": "other/b.json", "definitions": {"c": {"type": "string"}},
            "items": {"$ref": "#/definitions/c"}}},
    "properties": {"x": {"$ref": "#named"}, "y": {"$ref": "other/b.json"}}})";
  EXPECT_EQ(errors(schema, R"({"x": 1, "y": ["s"]})"), Errors{});
  EXPECT_EQ(errors(schema, R"({"x": "1", "y": [2]})"),
            (Errors{"/x: expected an integer, found a string",
                    "/y/0: expected a string, found an integer"}));
}

TEST(JsonSchema, ReadsDraft4IdsInADraft4Schema) {
  // Draft 4 spells $id as id; under draft 7's rules the "#/definitions/n" in `b` would name the
  // root's definition instead of b's.
  const std::string schema = R"({"$schema": "http://json-schema.org/draft-04/schema#",
    "id": "http://example.com/root.json",
    "definitions": {"n": {"type": "string"},
                    "b": {"id": "b.json", "definitions": {"n": {"type": "integer"}},
                          "items": {"$ref": "#/definitions/n"}}},
    "properties": {"x": {"$ref": "b.json"}}})";
  EXPECT_EQ(errors(schema, R"({"x": [1]})"), Errors{});
  EXPECT_EQ(errors(schema, R"({"x": ["1"]})"), Errors{"/x/0: expected an integer, found a string"});
}

TEST(JsonSchema, ResolvesTheDraft7MetaSchema) {
  const std::string schema = R"({"$ref": "http://json-schema.org/draft-07/schema#"})";
  EXPECT_EQ(errors(schema, R"({"type": "object", "properties": {"a": {"minLength": 1}}})"),
            Errors{});
  EXPECT_FALSE(errors(schema, R"({"properties": {"a": {"minLength": -1}}})").empty());
}

TEST(JsonSchema, ResolvesDocumentsItIsGiven) {
  const SchemaDocuments documents = {
      {"http://example.com/item.json", R"({"definitions": {"id": {"type": "integer"}}})"}};
  auto schema = JsonSchema::compile(
      R"({"items": {"$ref": "http://example.com/item.json#/definitions/id"}})", documents);
  ASSERT_TRUE(schema) << schema.error().message;
  EXPECT_EQ(schema->validate(json::parse(R"([1, "2"])")),
            Errors{"/1: expected an integer, found a string"});
  auto broken = JsonSchema::compile(R"({"$ref": "http://example.com/bad.json"})",
                                    {{"http://example.com/bad.json", R"({"type": 7})"}});
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("http://example.com/bad.json#/type: expected a type name"),
            std::string::npos)
      << broken.error().message;
}

TEST(JsonSchema, RefusesKeywordsItCannotApply) {
  EXPECT_EQ(compile_error(R"({"properties": {"a": {"dependentRequired": {"b": ["c"]}}}})"),
            "JSON schema: /properties/a/dependentRequired: \"dependentRequired\" is not a draft 7 "
            "keyword (it is from 2019-09; draft 7 spells it \"dependencies\" with an array), and "
            "ralph applies draft 7 only");
  EXPECT_NE(compile_error(R"({"prefixItems": [true]})").find("/prefixItems:"), std::string::npos);
  EXPECT_NE(compile_error(R"({"unevaluatedProperties": false})").find("/unevaluatedProperties:"),
            std::string::npos);
  EXPECT_NE(compile_error(R"({"$schema": "https://json-schema.org/draft/2020-12/schema"})")
                .find("/$schema: ralph applies JSON Schema draft 7"),
            std::string::npos);
  EXPECT_TRUE(JsonSchema::compile(R"({"$schema": "http://json-schema.org/draft-04/schema#"})"));
  EXPECT_NE(compile_error(R"({"pattern": "(a)\\1"})").find("/pattern: invalid regular expression"),
            std::string::npos);
  EXPECT_NE(compile_error(R"j({"patternProperties": {"(?=x)": true}})j")
                .find("/patternProperties/(?=x): invalid regular expression"),
            std::string::npos);
  EXPECT_NE(compile_error(R"({"multipleOf": 0})").find("/multipleOf: expected a number greater"),
            std::string::npos);
  EXPECT_NE(compile_error(R"({"dependencies": {"a": [1]}})").find("/dependencies/a: expected"),
            std::string::npos);
  EXPECT_NE(compile_error(R"({"$ref": "#/definitions/a%zz"})").find("cannot resolve"),
            std::string::npos);
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
