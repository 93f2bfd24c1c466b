// The judge's output parser: both forms, the strict final line, contradictions, and the
// decorations real models put around their verdicts.
#include "ralph/verify/judge_verdict.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace ralph::verify {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string summary(const JudgeReply& reply) {
  return std::string(to_string(reply.result)) + " [" + std::string(reply.category.name()) + "] " +
         reply.feedback;
}

void expect_malformed(std::string_view output, std::string_view why) {
  const JudgeReply reply = parse_judge_reply(output);
  EXPECT_EQ(reply.result, Outcome::error) << output << "\n=> " << summary(reply);
  EXPECT_EQ(reply.category.name(), "malformed") << output;
  EXPECT_THAT(reply.feedback, HasSubstr(std::string(why))) << output;
}

TEST(JudgeVerdict, ReasoningThenPass) {
  const JudgeReply reply =
      parse_judge_reply("Goal achievement: met, the script prints the sum.\nCompleteness: met.\n"
                        "Rule compliance: met (no rules).\n\nPASS\n");
  EXPECT_EQ(reply.result, Outcome::pass);
  EXPECT_EQ(reply.category.name(), "");
  EXPECT_EQ(reply.feedback, "");
  EXPECT_EQ(reply.reasoning, "Goal achievement: met, the script prints the sum.\nCompleteness: "
                             "met.\nRule compliance: met (no rules).");
}

TEST(JudgeVerdict, ReasoningThenFailKeepsReasoningOutOfTheFeedback) {
  const JudgeReply reply = parse_judge_reply(
      "Goal achievement: met.\nCompleteness: not met, the README section is missing.\n"
      "FAIL [incomplete]: Add the README section on installation the user asked for.");
  EXPECT_EQ(reply.result, Outcome::fail);
  EXPECT_EQ(reply.category.name(), "incomplete");
  EXPECT_EQ(reply.feedback, "Add the README section on installation the user asked for.");
  EXPECT_THAT(reply.reasoning, HasSubstr("README section is missing"));
  EXPECT_THAT(reply.feedback, Not(HasSubstr("Goal achievement")));
}

TEST(JudgeVerdict, EveryKnownCategory) {
  for (std::string_view category :
       {"goal_missed", "incomplete", "rule_violation", "tone_mismatch", "refusal", "blocked"}) {
    const JudgeReply reply =
        parse_judge_reply("Reasons.\nFAIL [" + std::string(category) + "]: fix it");
    EXPECT_EQ(reply.result, Outcome::fail) << category;
    EXPECT_EQ(reply.category.name(), category);
    EXPECT_TRUE(is_judge_category(category));
    EXPECT_FALSE(judge_category_description(category).empty());
  }
}

TEST(JudgeVerdict, UnknownWellFormedCategoryIsKept) {
  const JudgeReply reply = parse_judge_reply("FAIL [wrong_language]: Answer in French.");
  EXPECT_EQ(reply.result, Outcome::fail);
  EXPECT_EQ(reply.category.name(), "wrong_language");
  EXPECT_FALSE(is_judge_category("wrong_language"));
}

TEST(JudgeVerdict, BlockedIsAFailWithItsCategory) {
  const JudgeReply reply = parse_judge_reply(
      "The request asks to read a file that does not exist and only the user has it.\n"
      "FAIL [blocked]: The data file must be provided by the user.");
  EXPECT_EQ(reply.result, Outcome::fail);
  EXPECT_EQ(reply.category.name(), "blocked");
}

TEST(JudgeVerdict, ToleratedDecorations) {
  struct Case {
    const char* output;
    Outcome result;
    const char* category;
    const char* feedback;
  };
  const Case cases[] = {
      {"  PASS  ", Outcome::pass, "", ""},
      {"PASS.", Outcome::pass, "", ""},
      {"**PASS**", Outcome::pass, "", ""},
      {"**PASS.**", Outcome::pass, "", ""},
      {"`PASS`", Outcome::pass, "", ""},
      {"Pass", Outcome::pass, "", ""},
      {"pass", Outcome::pass, "", ""},
      {"Verdict: PASS", Outcome::pass, "", ""},
      {"**Verdict:** PASS", Outcome::pass, "", ""},
      {"**Final verdict**: PASS", Outcome::pass, "", ""},
      {"reasons\r\nPASS\r\n", Outcome::pass, "", ""},
      {"reasons\n```\nPASS\n```", Outcome::pass, "", ""},
      {"**FAIL [incomplete]**: missing tests", Outcome::fail, "incomplete", "missing tests"},
      {"**FAIL [incomplete]: missing tests**", Outcome::fail, "incomplete", "missing tests"},
      {"**FAIL** [incomplete]: missing tests", Outcome::fail, "incomplete", "missing tests"},
      {"FAIL [ incomplete ] : missing tests", Outcome::fail, "incomplete", "missing tests"},
      {"FAIL [incomplete] - missing tests", Outcome::fail, "incomplete", "missing tests"},
      {"FAIL [incomplete] \u2014 missing tests", Outcome::fail, "incomplete", "missing tests"},
      {"fail [goal_missed]: wrong file", Outcome::fail, "goal_missed", "wrong file"},
      {"Verdict: FAIL [refusal]: do the task", Outcome::fail, "refusal", "do the task"},
      {"FAIL [rule_violation]: Rule 3 says \"no emojis\"; remove them.", Outcome::fail,
       "rule_violation", "Rule 3 says \"no emojis\"; remove them."},
  };
  for (const Case& c : cases) {
    const JudgeReply reply = parse_judge_reply(c.output);
    EXPECT_EQ(reply.result, c.result) << c.output << " => " << summary(reply);
    EXPECT_EQ(reply.category.name(), c.category) << c.output;
    EXPECT_EQ(reply.feedback, c.feedback) << c.output;
  }
}

TEST(JudgeVerdict, FailWithoutFeedbackGetsTheCategoryDescription) {
  JudgeReply reply = parse_judge_reply("FAIL [incomplete]");
  EXPECT_EQ(reply.result, Outcome::fail);
  EXPECT_THAT(reply.feedback, HasSubstr("`incomplete` without details"));
  EXPECT_THAT(reply.feedback, HasSubstr("missing"));
  reply = parse_judge_reply("FAIL [odd_one]:");
  EXPECT_EQ(reply.result, Outcome::fail);
  EXPECT_EQ(reply.feedback, "The judge rated the answer `odd_one` without details.");
}

TEST(JudgeVerdict, EmptyOrBlankOutputIsMalformed) {
  expect_malformed("", "empty");
  expect_malformed(" \n\t\n ", "empty");
}

TEST(JudgeVerdict, OnlyReasoningIsMalformed) {
  expect_malformed("The answer covers everything the user asked for and follows the rules.",
                   "last line is not a verdict");
}

TEST(JudgeVerdict, VerdictWordInsideASentenceIsMalformed) {
  expect_malformed("Looks good.\nI would say this should PASS.", "last line is not a verdict");
  expect_malformed("Looks good.\nPASS, since everything is there.", "not a verdict");
  expect_malformed("Looks good.\nPASSED", "not a verdict");
  expect_malformed("Looks good.\nThe answer passes.", "not a verdict");
  expect_malformed("Fail to see any problem here", "not a verdict");
}

TEST(JudgeVerdict, VerdictNotOnTheLastLineIsMalformed) {
  // Strictly the final line: a verdict followed by more text is no verdict.
  expect_malformed("FAIL [incomplete]: missing parts:\n- the tests\n- the docs", "not a verdict");
  expect_malformed("PASS\nThe answer is complete.", "not a verdict");
}

TEST(JudgeVerdict, BadFailLinesAreMalformed) {
  expect_malformed("FAIL: the tests are missing", "not a verdict");       // no category
  expect_malformed("FAIL", "not a verdict");                              // no category
  expect_malformed("FAIL [Incomplete]: x", "not a verdict");              // not [a-z_]+
  expect_malformed("FAIL [goal missed]: x", "not a verdict");             // space
  expect_malformed("FAIL [goal_missed, incomplete]: x", "not a verdict"); // two
  expect_malformed("FAIL []: x", "not a verdict");
  expect_malformed("FAIL [incomplete: x", "not a verdict");
  expect_malformed("PASS [incomplete]", "not a verdict");
}

TEST(JudgeVerdict, EarlierPassContradictingTheFinalFail) {
  expect_malformed("Goal achievement:\nPASS\nCompleteness: the list stops at 7 of 10.\n"
                   "FAIL [incomplete]: Items 8 to 10 are missing.",
                   "contradictory: an earlier line says PASS, the last line says FAIL");
}

TEST(JudgeVerdict, EarlierFailContradictingTheFinalPass) {
  expect_malformed("**FAIL [incomplete]**: the list is short\nOn reflection it is fine.\nPASS",
                   "contradictory: an earlier line says FAIL, the last line says PASS");
}

TEST(JudgeVerdict, EarlierAgreeingVerdictLinesAreFine) {
  const JudgeReply reply = parse_judge_reply("FAIL [incomplete]: first thought\nMore reasons.\n"
                                             "FAIL [goal_missed]: the wrong file was edited");
  EXPECT_EQ(reply.result, Outcome::fail);
  EXPECT_EQ(reply.category.name(), "goal_missed");
  EXPECT_EQ(reply.feedback, "the wrong file was edited");
}

TEST(JudgeVerdict, StructuredPass) {
  const JudgeReply reply = parse_judge_reply(
      R"({"reasoning":"All three met.","verdict":"PASS","category":"none","feedback":""})");
  EXPECT_EQ(reply.result, Outcome::pass);
  EXPECT_EQ(reply.category.name(), "");
  EXPECT_EQ(reply.reasoning, "All three met.");
}

TEST(JudgeVerdict, StructuredFail) {
  const JudgeReply reply = parse_judge_reply(
      R"({"reasoning":"No tests.","verdict":"FAIL","category":"incomplete","feedback":"Add tests."})");
  EXPECT_EQ(reply.result, Outcome::fail);
  EXPECT_EQ(reply.category.name(), "incomplete");
  EXPECT_EQ(reply.feedback, "Add tests.");
  EXPECT_EQ(reply.reasoning, "No tests.");
}

TEST(JudgeVerdict, StructuredWithMissingOptionalFields) {
  JudgeReply reply = parse_judge_reply(R"({"verdict":"pass"})");
  EXPECT_EQ(reply.result, Outcome::pass);
  reply = parse_judge_reply(R"({"verdict":"PASS","category":null,"feedback":"fine"})");
  EXPECT_EQ(reply.result, Outcome::pass);
  EXPECT_EQ(reply.category.name(), "");
  reply = parse_judge_reply(R"({"verdict":"PASS","category":""})");
  EXPECT_EQ(reply.result, Outcome::pass);
  reply = parse_judge_reply(R"({"verdict":"FAIL","category":"refusal"})");
  EXPECT_EQ(reply.result, Outcome::fail);
  EXPECT_THAT(reply.feedback, HasSubstr("declined"));
}

TEST(JudgeVerdict, StructuredInAJsonFence) {
  JudgeReply reply = parse_judge_reply(
      "```json\n{\"verdict\": \"FAIL\", \"category\": \"goal_missed\", \"feedback\": \"x\"}\n```");
  EXPECT_EQ(reply.result, Outcome::fail);
  EXPECT_EQ(reply.category.name(), "goal_missed");
  reply = parse_judge_reply("Thinking it over.\n\n```\n{\"verdict\": \"PASS\"}\n```\n");
  EXPECT_EQ(reply.result, Outcome::pass);
  EXPECT_EQ(reply.reasoning, "Thinking it over.");
}

TEST(JudgeVerdict, StructuredPassWithAFailureCategoryIsContradictory) {
  expect_malformed(R"({"verdict":"PASS","category":"incomplete","feedback":"missing x"})",
                   "contradictory: PASS with the failure category `incomplete`");
}

TEST(JudgeVerdict, BadStructuredOutputIsMalformed) {
  expect_malformed(R"({"verdict":"PASS")", "JSON output is invalid");
  expect_malformed(R"({"verdict":"MAYBE"})", "instead of PASS or FAIL");
  expect_malformed(R"({"category":"none"})", "instead of PASS or FAIL");
  expect_malformed(R"({"verdict":true})", "not a string");
  expect_malformed(R"({"verdict":"FAIL","category":"none","feedback":"x"})", "no category");
  expect_malformed(R"({"verdict":"FAIL","category":"Goal Missed"})", "not a [a-z_]+ name");
  expect_malformed("```json\n{\"verdict\": \n```", "JSON output is invalid");
  expect_malformed(R"({"verdict":"PASS"} and some trailing words)", "JSON output is invalid");
}

TEST(JudgeVerdict, FencedTextIsNotJson) {
  const JudgeReply reply = parse_judge_reply("Reasons.\n```\nFAIL [incomplete]: add docs\n```");
  EXPECT_EQ(reply.result, Outcome::fail);
  EXPECT_EQ(reply.feedback, "add docs");
}

// Every prefix of a failing output parses (byte by byte), and none of them passes.
TEST(JudgeVerdict, PrefixesNeverPassByAccident) {
  const std::string output = "Goal: met.\nCompleteness: not met.\nFAIL [incomplete]: add the docs";
  for (std::size_t n = 0; n <= output.size(); ++n) {
    const JudgeReply reply = parse_judge_reply(output.substr(0, n));
    EXPECT_NE(reply.result, Outcome::pass) << n;
  }
}

} // namespace
} // namespace ralph::verify
