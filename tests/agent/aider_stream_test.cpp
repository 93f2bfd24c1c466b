#include "cli_stream_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::agent {
namespace {

using testing::describe_all;
using ::testing::ElementsAre;
using testing::events_of;

std::vector<CliEvent> parse(const std::vector<std::string>& lines) {
  return testing::parse_lines(CliFormat::aider, lines);
}

std::vector<std::string> whole_output() {
  return {"Aider v0.86.3.dev",
          "Main model: anthropic/claude-sonnet-4-5 with diff edit format, prompt cache",
          "Weak model: anthropic/claude-haiku-4-5",
          "Git repo: .git with 12 files",
          "Repo-map: using 4096 tokens, auto refresh",
          "Added src/parse.cc to the chat.",
          "",
          "The parser dropped the last token.",
          "Added a bounds check.",
          "",
          "Applied edit to src/parse.cc",
          "Commit 1a2b3c4 fix: keep the last token",
          "Tokens: 12k sent, 1.2k cache write, 1.2k cache hit, 850 received.",
          "Cost: $0.02 message, $0.05 session."};
}

TEST(AiderStream, WholeOutputGivesTextUsageAndTheAnswerWithoutAidersOwnLines) {
  EXPECT_THAT(describe_all(parse(whole_output())),
              ElementsAre("text delta [The parser dropped the last token.\n]",
                          "text delta [Added a bounds check.\n]", "text delta [\n]",
                          "usage in=12000 out=850 read=1200 write=1200 cost=none thread=false",
                          "usage in=12000 out=850 read=1200 write=1200 cost=0.05 thread=false",
                          "result ok=true answer=[The parser dropped the last token.\nAdded a "
                          "bounds check.] error=[]"));
}

TEST(AiderStream, UsageReportsOfOneProcessAddUpAndTheCostIsTheSessionFigure) {
  const auto usage = events_of<CliUsage>(parse(
      {"Tokens: 2.5k sent, 120 received. Cost: $0.01 message, $0.01 session.",
       "lint fix:", "Tokens: 3.4M sent, 1k received. Cost: $0.0012 message, $0.0112 session."}));
  ASSERT_EQ(usage.size(), 2U);
  EXPECT_EQ(usage[1].usage.input_tokens, 2500 + 3400000);
  EXPECT_EQ(usage[1].usage.output_tokens, 1120);
  EXPECT_EQ(usage[1].cost_usd, 0.0112);
  EXPECT_FALSE(usage[1].thread_total);
}

TEST(AiderStream, UsageWithoutPricingHasNoCost) {
  const auto usage = events_of<CliUsage>(parse({"Tokens: 850 sent, 12 received."}));
  ASSERT_EQ(usage.size(), 1U);
  EXPECT_EQ(usage[0].usage.input_tokens, 850);
  EXPECT_FALSE(usage[0].cost_usd.has_value());
}

TEST(AiderStream, ModelLineThatOnlyLooksLikeAReportIsText) {
  EXPECT_THAT(describe_all(parse({"Tokens: are what a model reads.", "Cost: nothing.",
                                  "Tokens: 1k sent, 10 received."})),
              ElementsAre("text delta [Tokens: are what a model reads.\n]",
                          "text delta [Cost: nothing.\n]",
                          "usage in=1000 out=10 read=0 write=0 cost=none thread=false",
                          "result ok=true answer=[Tokens: are what a model reads.\nCost: "
                          "nothing.] error=[]"));
}

TEST(AiderStream, ModelErrorWithExitZeroFailsTheRun) {
  EXPECT_THAT(describe_all(
                  parse({"Aider v0.86.3.dev",
                         "litellm.AuthenticationError: AnthropicException - invalid x-api-key",
                         "The API provider is not able to authenticate you. Check your API key."})),
              ElementsAre("notice [litellm.AuthenticationError: AnthropicException - invalid "
                          "x-api-key]",
                          "text delta [The API provider is not able to authenticate you. Check "
                          "your API key.\n]",
                          "result ok=false answer=[] error=[litellm.AuthenticationError: "
                          "AnthropicException - invalid x-api-key]"));
}

TEST(AiderStream, RetriedErrorFollowedByAnAnswerSucceeds) {
  const auto results =
      events_of<CliResult>(parse({"litellm.RateLimitError: slow down", "Retrying in 0.2 seconds...",
                                  "Done.", "Tokens: 1k sent, 10 received."}));
  ASSERT_EQ(results.size(), 1U);
  EXPECT_TRUE(results[0].ok);
  EXPECT_EQ(results[0].answer, "Done.");
}

TEST(AiderStream, AnnouncementWordsInsideTheAnswerStay) {
  const auto results = events_of<CliResult>(
      parse({"Aider v0.86.3.dev", "Model: gpt-5 with whole edit format", "Added a test.",
             "Model: a bounds check.", "Added x to the chat."}));
  ASSERT_EQ(results.size(), 1U);
  // Announcements come only before the model's first line, and only in their exact shape.
  EXPECT_EQ(results[0].answer, "Added a test.\nModel: a bounds check.\nAdded x to the chat.");
}

TEST(AiderStream, CrLfLineEndingsChangeNothing) {
  EXPECT_EQ(describe_all(parse(testing::with_crlf(whole_output()))),
            describe_all(parse(whole_output())));
}

} // namespace
} // namespace ralph::agent
