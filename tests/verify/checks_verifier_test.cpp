#include "ralph/verify/checks_verifier.h"

#include <gtest/gtest.h>

namespace ralph::verify {
namespace {

Verdict check(ChecksSettings settings, std::string answer, std::string_view schema = {}) {
  auto verifier = make_checks_verifier(std::move(settings), schema);
  if (!verifier) {
    ADD_FAILURE() << verifier.error().message;
    return {};
  }
  Attempt attempt;
  attempt.answer = std::move(answer);
  return (*verifier)->verify(attempt, CancelToken{});
}

std::string config_error(ChecksSettings settings, std::string_view schema = {}) {
  auto verifier = make_checks_verifier(std::move(settings), schema);
  if (verifier) {
    ADD_FAILURE() << "accepted";
    return {};
  }
  EXPECT_EQ(verifier.error().kind, ErrorKind::config);
  return verifier.error().message;
}

TEST(ChecksVerifier, PassesWhenEveryRuleHolds) {
  const Verdict verdict = check({.must_match = {"(?i)summary", "[0-9]+ tests"},
                                 .must_not_match = {"TODO"},
                                 .min_chars = 10,
                                 .max_chars = 200,
                                 .min_bullets = 2,
                                 .max_bullets = 3},
                                "Summary:\n- 12 tests pass\n- lint is clean\n");
  EXPECT_EQ(verdict.verifier, "checks");
  EXPECT_EQ(verdict.result, Outcome::pass);
  EXPECT_EQ(verdict.category.name(), "");
}

TEST(ChecksVerifier, NoRulesAlwaysPass) {
  EXPECT_EQ(check({}, "").result, Outcome::pass);
}

TEST(ChecksVerifier, ListsEveryBrokenRuleNumbered) {
  const Verdict verdict = check({.must_match = {"^Summary"},
                                 .must_not_match = {"TODO|FIXME"},
                                 .max_chars = 20,
                                 .min_bullets = 3,
                                 .max_bullets = 7},
                                "Notes\n- one\n- FIXME later\n");
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "check_failed");
  EXPECT_EQ(verdict.feedback,
            "The answer broke 4 of the checks:\n"
            "1. expected a match for `^Summary` (must_match), found none\n"
            "2. expected no match for `TODO|FIXME` (must_not_match), found \"FIXME\"\n"
            "3. expected at most 20 characters, found 26\n"
            "4. expected 3–7 bullets, found 2");
}

TEST(ChecksVerifier, CountsCharactersAsCodePoints) {
  EXPECT_EQ(check({.max_chars = 3}, "äöü").result, Outcome::pass);
  const Verdict verdict = check({.min_chars = 4}, "äöü");
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_NE(verdict.feedback.find("expected at least 4 characters, found 3"), std::string::npos);
  EXPECT_NE(check({.min_chars = 1, .max_chars = 2}, "🦤🦤🦤")
                .feedback.find("expected 1–2 characters, found 3"),
            std::string::npos);
}

TEST(ChecksVerifier, CountsBulletsOfEveryKind) {
  const std::string answer = "Intro line\n"
                             "- dash\n"
                             "* star\n"
                             "  • indented dot\n"
                             "\t- tab indented\n"
                             "1. first\n"
                             "12) twelfth\n"
                             "---\n"
                             "**bold** is not a bullet\n"
                             "-no space is not one\n"
                             "- \n"
                             "3.5 is a number, not a bullet\n"
                             "```\n"
                             "- inside a code block\n"
                             "```\n";
  EXPECT_EQ(check({.min_bullets = 6, .max_bullets = 6}, answer).result, Outcome::pass);
  EXPECT_NE(check({.max_bullets = 5}, answer).feedback.find("expected at most 5 bullets, found 6"),
            std::string::npos);
  EXPECT_NE(check({.min_bullets = 7}, answer).feedback.find("expected at least 7 bullets, found 6"),
            std::string::npos);
}

TEST(ChecksVerifier, AcceptsBareOrFencedJson) {
  EXPECT_EQ(check({.json = true}, R"({"a": 1})").result, Outcome::pass);
  EXPECT_EQ(check({.json = true}, "  [1, 2]\n").result, Outcome::pass);
  EXPECT_EQ(check({.json = true}, "```json\n{\"a\": 1}\n```").result, Outcome::pass);
  EXPECT_EQ(check({.json = true}, "```JSON\n{\"a\": 1}\n```\n").result, Outcome::pass);
  EXPECT_EQ(check({.json = true}, "```\n{\"a\": 1}\n```").result, Outcome::pass);
}

TEST(ChecksVerifier, RejectsJsonWithProseOrErrors) {
  const Verdict prose = check({.json = true}, "Here it is:\n```json\n{\"a\": 1}\n```");
  EXPECT_EQ(prose.result, Outcome::fail);
  EXPECT_NE(prose.feedback.find("expected valid JSON (bare, or as one ```json block), found the "
                                "answer: malformed JSON near byte"),
            std::string::npos);
  EXPECT_EQ(check({.json = true}, R"({"a": 1,})").result, Outcome::fail);
  EXPECT_EQ(check({.json = true}, "```python\n{\"a\": 1}\n```").result, Outcome::fail);
  EXPECT_EQ(check({.json = true}, "```json\n{}\n```\n```json\n{}\n```").result, Outcome::fail);
  EXPECT_EQ(check({.json = true}, "").result, Outcome::fail);
}

TEST(ChecksVerifier, ValidatesAgainstTheSchemaAndListsEachError) {
  const std::string schema = R"({"type": "object", "required": ["title", "tags"],
      "properties": {"title": {"type": "string"}, "tags": {"type": "array", "maxItems": 2}}})";
  EXPECT_EQ(check({}, R"({"title": "x", "tags": []})", schema).result, Outcome::pass);
  const Verdict verdict = check({}, R"({"title": 5, "tags": [1, 2, 3]})", schema);
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.feedback, "The answer broke 2 of the checks:\n"
                              "1. JSON schema: /tags: expected at most 2 items, found 3\n"
                              "2. JSON schema: /title: expected a string, found an integer");
  // A schema implies JSON.
  EXPECT_NE(check({}, "not json", schema).feedback.find("expected valid JSON"), std::string::npos);
}

TEST(ChecksVerifier, FactoryRejectsInvalidRules) {
  EXPECT_EQ(config_error({.must_match = {"ok", "(unclosed"}}),
            "checks: must_match pattern `(unclosed` is not a valid RE2 regular expression: "
            "missing ): (unclosed");
  EXPECT_NE(config_error({.must_not_match = {"a{2,1}"}}).find("must_not_match pattern `a{2,1}`"),
            std::string::npos);
  EXPECT_NE(config_error({.must_match = {"(?<=a)b"}}).find("not a valid RE2"), std::string::npos);
  EXPECT_EQ(config_error({.min_chars = 10, .max_chars = 5}),
            "checks: min_chars (10) is greater than max_chars (5)");
  EXPECT_EQ(config_error({.min_bullets = 4, .max_bullets = 3}),
            "checks: min_bullets (4) is greater than max_bullets (3)");
  EXPECT_NE(config_error({}, R"({"type": "text"})")
                .find("checks: json_schema rule: JSON schema: /type: expected a type name"),
            std::string::npos);
  EXPECT_NE(config_error({}, "{").find("json_schema rule"), std::string::npos);
}

} // namespace
} // namespace ralph::verify
