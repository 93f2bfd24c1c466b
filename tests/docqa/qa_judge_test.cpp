#include "recording_provider.h"

#include "ralph/docqa/qa_judge.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace ralph::docqa {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::RecordingProvider;

// Two facts far apart, with filler between them so their windows stay separate.
std::string document_text() {
  std::string text = "Payment is due on the first day of every month.\n";
  text += std::string(600, 'x') + "\n";
  text += "Late payment costs a fee of five percent.\n";
  text += "A second late payment within a year ends the lease.\n";
  return text;
}

class QaJudge : public ::testing::Test {
protected:
  QaJudge() {
    attempt.goal = "When is rent due and what happens if it is late?";
    attempt.answer =
        nlohmann::json{
            {"answer", {"Rent is due on the first.", "Late rent costs 5%.", "Pets are allowed."}},
            {"evidence",
             {"Payment is due on the first day of every month.",
              "Late payment costs a fee of five percent.",
              "A second late payment within a year ends the lease."}}}
            .dump();
  }
  verify::Verdict judge() {
    const QaChecker checker(document, rules);
    QaJudgeVerifier verifier(provider, checker, {llm::ProviderKind::scripted, "judge-model"},
                             settings, window_chars);
    return verifier.verify(attempt, CancelToken());
  }

  std::string text = document_text();
  GroundedDocument document{"lease.txt", text};
  QaRules rules;
  JudgeSettings settings;
  std::size_t window_chars = 30;
  RecordingProvider provider;
  verify::Attempt attempt;
};

TEST_F(QaJudge, WindowsAroundNearbyQuotesMergeAndDistantOnesStayApart) {
  const QaReport report = check_qa_answer(attempt.answer, document, rules);
  const std::vector<Span> windows = qa_evidence_windows(report, document, window_chars);
  ASSERT_EQ(windows.size(), 2U);
  EXPECT_EQ(windows[0].begin, 0U);
  EXPECT_EQ(windows[0].end, text.find("Payment is due") + 47 + 30);
  // The two late-payment quotes are adjacent lines: one merged window covers both.
  EXPECT_EQ(windows[1].begin, text.find("Late payment") - 30);
  EXPECT_EQ(windows[1].end, text.size());
}

TEST_F(QaJudge, IssuesNamingBulletsFailTheAttempt) {
  provider.push(R"({"ok": false, "issues": [{"bullet": 3, "issue": "no excerpt mentions pets"}]})");
  const verify::Verdict verdict = judge();
  EXPECT_EQ(verdict.result, verify::Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "unsupported");
  EXPECT_EQ(verdict.feedback, "bullet 3: no excerpt mentions pets");
  EXPECT_EQ(verdict.usage.input_tokens, 100);

  ASSERT_EQ(provider.requests.size(), 1U);
  const std::string prompt = provider.requests[0].messages.at(0).content;
  EXPECT_THAT(prompt, HasSubstr("3. Pets are allowed."));
  EXPECT_THAT(prompt, HasSubstr("[E1] bytes 0-"));
  EXPECT_THAT(prompt, HasSubstr("[E2] bytes"));
  EXPECT_THAT(prompt, HasSubstr("(line 2)"));
  EXPECT_THAT(prompt, Not(HasSubstr(std::string(100, 'x')))) << "only windows, not the document";
  EXPECT_TRUE(provider.requests[0].json_schema.has_value());
  EXPECT_FALSE(provider.requests[0].has_tools);
}

TEST_F(QaJudge, OkPasses) {
  provider.push("```json\n{\"ok\": true, \"issues\": []}\n```");
  EXPECT_EQ(judge().result, verify::Outcome::pass);
}

TEST_F(QaJudge, ContradictoryOrUnparsableRepliesAreErrorsNotPasses) {
  provider.push(R"({"ok": true, "issues": [{"bullet": 1, "issue": "wrong"}]})");
  provider.push("Looks fine to me.");
  const verify::Verdict contradictory = judge();
  EXPECT_EQ(contradictory.result, verify::Outcome::error);
  EXPECT_EQ(contradictory.category.name(), "malformed");
  EXPECT_THAT(contradictory.feedback, HasSubstr("contradictory"));
  const verify::Verdict prose = judge();
  EXPECT_EQ(prose.result, verify::Outcome::error);
  EXPECT_EQ(prose.category.name(), "malformed");
}

TEST_F(QaJudge, ProviderFailuresAreErrors) {
  provider.push_error(Error{.kind = ErrorKind::provider, .message = "HTTP 500: overloaded"});
  const verify::Verdict verdict = judge();
  EXPECT_EQ(verdict.result, verify::Outcome::error);
  EXPECT_EQ(verdict.category.name(), "provider_error");
  EXPECT_THAT(verdict.feedback, HasSubstr("overloaded"));
}

TEST_F(QaJudge, NothingToJudgeMakesNoCall) {
  attempt.answer = "I could not find it.";
  const verify::Verdict verdict = judge();
  EXPECT_EQ(verdict.result, verify::Outcome::error);
  EXPECT_EQ(verdict.category.name(), "not_judged");
  EXPECT_TRUE(provider.requests.empty());
}

TEST_F(QaJudge, TheContextBudgetDropsLaterWindowsWithANote) {
  settings.context_chars = 400;
  const QaReport report = check_qa_answer(attempt.answer, document, rules);
  const std::string prompt = qa_judge_prompt(attempt.goal, *report.answer,
                                             qa_evidence_windows(report, document, window_chars),
                                             document, settings.context_chars);
  EXPECT_LE(prompt.size(), 400U + 80U);
  EXPECT_THAT(prompt, HasSubstr("[1 more excerpt(s) left out"));
}

} // namespace
} // namespace ralph::docqa
