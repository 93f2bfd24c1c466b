#include "cli_stream_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::agent {
namespace {

using testing::describe_all;
using ::testing::ElementsAre;
using testing::events_of;

std::vector<CliEvent> parse(const std::vector<std::string>& lines) {
  return testing::parse_lines(CliFormat::goose, lines);
}

std::vector<std::string> whole_stream() {
  return {
      R"({"type":"message","message":{"id":"msg_1","role":"assistant","created":1755780000,"content":[{"type":"text","text":"Running tests"},{"type":"toolRequest","id":"call_1","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"make test"}}}}],"metadata":{"userVisible":true,"agentVisible":true}}})",
      R"({"type":"message","message":{"id":null,"role":"user","created":1755780003,"content":[{"type":"toolResponse","id":"call_1","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"FAIL parse_test"}],"isError":false}}}],"metadata":{}}})",
      R"({"type":"notification","extension_id":"developer","log":{"message":"running"}})",
      R"({"type":"model_change","model":"gpt-4o","mode":"auto"})",
      R"({"type":"message","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"Fixed"}]}})",
      R"({"type":"message","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":" it."}]}})",
      R"({"type":"complete","total_tokens":12345})"};
}

TEST(GooseStream, WholeStreamGivesTextToolCallUsageAndResult) {
  EXPECT_THAT(
      describe_all(parse(whole_stream())),
      ElementsAre(
          "text delta [Running tests]",
          R"(started call_1 developer__shell {"command":"make test"})",
          R"(finished call_1 developer__shell {"command":"make test"} error=false exit=none [FAIL parse_test])",
          "text delta [Fixed]", "text delta [ it.]",
          "usage in=12345 out=0 read=0 write=0 cost=none thread=false",
          "result ok=true answer=[Fixed it.] error=[]"));
}

TEST(GooseStream, ToolResultsOfEveryShapeAreRead) {
  const auto finished = events_of<CliToolFinished>(parse(
      {R"({"type":"message","message":{"role":"user","content":[{"type":"toolResponse","id":"a","toolResult":{"status":"success","value":[{"type":"text","text":"array shape"}]}}]}})",
       R"({"type":"message","message":{"role":"user","content":[{"type":"toolResponse","id":"b","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"denied"}],"isError":true}}}]}})",
       R"({"type":"message","message":{"role":"user","content":[{"type":"toolResponse","id":"c","toolResult":{"status":"error","error":"-32603: tool crashed"}}]}})"}));
  ASSERT_EQ(finished.size(), 3U);
  EXPECT_EQ(finished[0].output, "array shape");
  EXPECT_FALSE(finished[0].is_error);
  EXPECT_EQ(finished[1].output, "denied");
  EXPECT_TRUE(finished[1].is_error);
  EXPECT_EQ(finished[2].output, "-32603: tool crashed");
  EXPECT_TRUE(finished[2].is_error);
}

TEST(GooseStream, ErrorEventFailsTheRunEvenThoughCompleteFollows) {
  EXPECT_THAT(
      describe_all(parse(
          {R"({"type":"message","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"Let me"}]}})",
           R"({"type":"error","error":"Request failed: 401 Unauthorized"})",
           R"({"type":"complete","total_tokens":null})"})),
      ElementsAre("text delta [Let me]", "notice [Request failed: 401 Unauthorized]",
                  "result ok=false answer=[] error=[Request failed: 401 Unauthorized]"));
}

TEST(GooseStream, NullTotalTokensGivesNoUsage) {
  EXPECT_THAT(describe_all(parse({R"({"type":"complete","total_tokens":null})"})),
              ElementsAre("result ok=true answer=[] error=[]"));
}

TEST(GooseStream, MissingCompleteGivesNoResult) {
  auto lines = whole_stream();
  lines.pop_back();
  EXPECT_TRUE(events_of<CliResult>(parse(lines)).empty());
}

TEST(GooseStream, JunkBlankMalformedAndUnknownLinesAreSkipped) {
  EXPECT_TRUE(
      parse(
          {"", "starting session | provider: openai", "{\"type\":\"message\",",
           R"({"type":"message","message":{"id":"u","role":"user","content":[{"type":"text","text":"the prompt"}]}})",
           R"({"type":"message","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"image","data":""}]}})",
           R"({"type":"message","message":{"role":"assistant","content":"not an array"}})",
           R"({"type":"unknown_future_event"})"})
          .empty());
}

TEST(GooseStream, MegabyteLineIsReadWhole) {
  const auto texts = events_of<CliText>(parse({testing::padded(
      R"({"type":"message","message":{"id":"m","role":"assistant","content":[{"type":"text","text":")",
      2 << 20, R"("}]}})")}));
  ASSERT_EQ(texts.size(), 1U);
  EXPECT_EQ(texts[0].text.size(), std::size_t{2} << 20);
}

TEST(GooseStream, CrLfLineEndingsChangeNothing) {
  EXPECT_EQ(describe_all(parse(testing::with_crlf(whole_stream()))),
            describe_all(parse(whole_stream())));
}

} // namespace
} // namespace ralph::agent
