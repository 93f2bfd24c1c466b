#include "ralph/docqa/document_agents.h"
#include "ralph/docqa/qa_checks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::docqa {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view k_document =
    "The Ralph loop retries an answer until independent checks pass.\n"
    "RLM keeps the document in a sandbox and queries slices of it.\n"
    "The tenant\xE2\x80\x99s deposit is returned within thirty days.\n"
    "Each claim must be backed by evidence from the text.\n";

std::string answer(std::vector<std::string> quotes, std::size_t bullets = 3) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < bullets; ++i) {
    items.push_back("Claim " + std::to_string(i + 1) + ".");
  }
  return nlohmann::json{{"answer", items}, {"evidence", quotes}}.dump();
}

const std::vector<std::string> k_good = {
    "The Ralph loop retries an answer until independent checks pass.",
    "RLM keeps the document in a sandbox", "Each claim must be backed by evidence"};

class QaChecks : public ::testing::Test {
protected:
  QaReport check(const std::string& text) { return check_qa_answer(text, document, rules); }
  std::string problems(const std::string& text) {
    std::string all;
    for (const auto& problem : check(text).problems) {
      all += problem + "\n";
    }
    return all;
  }

  GroundedDocument document{"notes.txt", k_document};
  QaRules rules;
};

TEST(QaAnswer, ParsesBareFencedAndEmbeddedObjects) {
  const std::string object = answer(k_good);
  EXPECT_EQ(parse_qa_answer(object)->quotes.size(), 3U);
  EXPECT_EQ(parse_qa_answer("```json\n" + object + "\n```")->bullets.size(), 3U);
  EXPECT_EQ(parse_qa_answer("Here it is:\n" + object + "\nDone.")->quotes[1],
            "RLM keeps the document in a sandbox");
}

TEST(QaAnswer, SaysWhatIsWrongWithTheForm) {
  EXPECT_THAT(parse_qa_answer("- just bullets").error().message, HasSubstr("JSON object"));
  EXPECT_THAT(parse_qa_answer(R"({"answer": ["a"]})").error().message, HasSubstr("\"evidence\""));
  EXPECT_THAT(parse_qa_answer(R"({"answer": ["a"], "evidence": [1]})").error().message,
              HasSubstr("\"evidence\" item 1 is not a string"));
}

TEST_F(QaChecks, AGoodAnswerPassesWithTheLevelAndOffsetsOfEachQuote) {
  const QaReport report = check(answer(k_good));
  EXPECT_TRUE(report.passed()) << report.problems.front();
  ASSERT_EQ(report.quotes.size(), 3U);
  EXPECT_EQ(report.quotes[1].match.level, MatchLevel::exact);
  ASSERT_EQ(report.quotes[1].match.occurrences.size(), 1U);
  EXPECT_EQ(report.quotes[1].match.occurrences[0].begin, k_document.find("RLM keeps"));
  EXPECT_THAT(describe_quote_matches(report, document),
              HasSubstr("quote 2: exact, bytes " + std::to_string(k_document.find("RLM keeps"))));
  EXPECT_THAT(describe_quote_matches(report, document), HasSubstr("(line 2, column 1)"));
}

TEST_F(QaChecks, AStraightApostropheForACurlyOneIsCaughtAndNamed) {
  std::vector<std::string> quotes = k_good;
  quotes[2] = "The tenant's deposit is returned within thirty days.";
  const QaReport report = check(answer(quotes));
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.quotes[2].match.level, MatchLevel::typographic);
  EXPECT_THAT(problems(answer(quotes)), HasSubstr("quote 3 \"The tenant's deposit"));
  EXPECT_THAT(problems(answer(quotes)), HasSubstr("only with typographic folding"));

  rules.limits.match_level = MatchLevel::typographic;
  EXPECT_TRUE(check(answer(quotes)).passed());
}

TEST_F(QaChecks, LetterCaseNeedsTheCasefoldLevel) {
  std::vector<std::string> quotes = k_good;
  quotes[0] = "the ralph loop retries an answer";
  EXPECT_THAT(problems(answer(quotes)), HasSubstr("letter case differs"));
  rules.limits.match_level = MatchLevel::casefold;
  EXPECT_TRUE(check(answer(quotes)).passed());
}

TEST_F(QaChecks, TrivialQuotesAreNotEvidence) {
  std::vector<std::string> quotes = k_good;
  quotes[1] = "RLM";
  const std::string found = problems(answer(quotes));
  EXPECT_THAT(found, HasSubstr("quote 2 \"RLM\" is too short to be evidence (at least 3 words"));
  EXPECT_THAT(found, Not(HasSubstr("not in the document")));
}

TEST_F(QaChecks, QuotesFromRalphsOwnPromptsAreRejected) {
  rules.own_prompts = {qa_instructions(rules.limits)};
  std::vector<std::string> quotes = k_good;
  quotes[2] = "copied character for character from the document";
  EXPECT_THAT(problems(answer(quotes)),
              HasSubstr("quote 3 \"copied character for character from the document\" comes "
                        "from the instructions"));
}

TEST_F(QaChecks, DuplicatesLongQuotesAndCountsAreReported) {
  std::vector<std::string> quotes = k_good;
  quotes.push_back("the ralph LOOP retries an answer until independent checks pass.");
  rules.limits.match_level = MatchLevel::casefold;
  EXPECT_THAT(problems(answer(quotes)), HasSubstr("quote 4 \"the ralph LOOP retries"));
  EXPECT_THAT(problems(answer(quotes)), HasSubstr("…\" repeats an earlier quote"));
  rules.limits.max_quote_chars = 20;
  EXPECT_THAT(problems(answer(k_good)), HasSubstr("is 63 characters long; the limit is 20"));
  EXPECT_THAT(problems(answer(k_good, 8)), HasSubstr("expected 3–7 answer bullets, found 8"));
  EXPECT_THAT(problems(answer({k_good[0]})), HasSubstr("expected 3–8 evidence quotes, found 1"));
}

TEST_F(QaChecks, TheVerifierFailsWithEveryProblemNumbered) {
  const QaChecker checker(document, rules);
  QaChecksVerifier verifier(checker);
  verify::Attempt attempt;
  attempt.answer = answer({"RLM", "not in this document at all, no"}, 2);
  const verify::Verdict verdict = verifier.verify(attempt, CancelToken());
  EXPECT_EQ(verdict.result, verify::Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "check_failed");
  EXPECT_THAT(verdict.feedback, HasSubstr("1. expected 3–7 answer bullets, found 2"));
  EXPECT_THAT(verdict.feedback, HasSubstr("\n4. quote 2 \"not in this document at all, no\" is "
                                          "not in the document"));
  EXPECT_THAT(verdict.reasoning, HasSubstr("quote 2: not found"));
}

} // namespace
} // namespace ralph::docqa
