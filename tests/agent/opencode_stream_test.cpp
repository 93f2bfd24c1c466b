#include "cli_stream_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::agent {
namespace {

using testing::describe_all;
using ::testing::ElementsAre;
using testing::events_of;

std::vector<CliEvent> parse(const std::vector<std::string>& lines) {
  return testing::parse_lines(CliFormat::opencode, lines);
}

const std::string k_step_start =
    R"({"type":"step_start","timestamp":1755780000000,"sessionID":"ses_9x","part":{"id":"prt_1","sessionID":"ses_9x","messageID":"msg_2","type":"step-start","snapshot":"s"}})";
const std::string k_text =
    R"({"type":"text","timestamp":1,"sessionID":"ses_9x","part":{"id":"prt_2","messageID":"msg_2","type":"text","text":"Running tests.","time":{"start":1,"end":2}}})";
const std::string k_tool_v1 =
    R"({"type":"tool_use","timestamp":2,"sessionID":"ses_9x","part":{"type":"tool","tool":"bash","callID":"call_1","state":{"status":"completed","input":{"command":"make test"},"output":"FAIL parse_test","title":"Run tests","metadata":{"output":"FAIL parse_test","exit":2,"description":"Run tests"},"time":{"start":1,"end":2}}}})";
const std::string k_step_tools =
    R"({"type":"step_finish","timestamp":3,"sessionID":"ses_9x","part":{"type":"step-finish","reason":"tool-calls","cost":0.0123,"tokens":{"total":9000,"input":8000,"output":600,"reasoning":0,"cache":{"read":7000,"write":400}}}})";
const std::string k_final_text =
    R"({"type":"text","timestamp":4,"sessionID":"ses_9x","part":{"type":"text","text":"All tests pass."}})";
const std::string k_step_stop =
    R"({"type":"step_finish","timestamp":5,"sessionID":"ses_9x","part":{"type":"step-finish","reason":"stop","cost":0.0077,"tokens":{"input":100,"output":50,"reasoning":10,"cache":{"read":9000,"write":0}}}})";

std::vector<std::string> v1_stream() {
  return {k_step_start,
          k_text,
          k_tool_v1,
          k_step_tools,
          k_final_text,
          k_step_stop,
          R"({"type":"done","timestamp":6,"sessionID":"ses_9x","reason":"idle","rejected":[]})"};
}

TEST(OpencodeStream, V1StreamGivesSessionTextFinishedToolRunningUsageAndDone) {
  EXPECT_THAT(
      describe_all(parse(v1_stream())),
      ElementsAre(
          "session ses_9x ", "text [Running tests.]",
          R"(finished call_1 bash {"command":"make test"} error=true exit=2 [FAIL parse_test])",
          "usage in=15400 out=600 read=7000 write=400 cost=0.0123 thread=false",
          "text [All tests pass.]",
          "usage in=24500 out=660 read=16000 write=400 cost=0.02 thread=false",
          "result ok=true answer=[All tests pass.] error=[]"));
}

TEST(OpencodeStream, V2ToolUsesItsIdAndNestedExitCode) {
  const auto finished = events_of<CliToolFinished>(parse(
      {R"({"type":"tool_use","timestamp":2,"sessionID":"ses_2","part":{"partID":"prt_7","type":"tool","id":"call_9","tool":"bash","state":{"status":"completed","input":{"command":"true"},"output":"","title":"bash","metadata":{"metadata":{"exit":0},"content":[]}}}})",
       R"({"type":"tool_use","timestamp":3,"sessionID":"ses_2","part":{"partID":"prt_8","type":"tool","id":"call_10","tool":"edit","state":{"status":"error","input":{"path":"a"},"error":"file is read-only","metadata":{}}}})",
       R"({"type":"tool_use","sessionID":"ses_2","part":{"type":"tool","id":"call_11","tool":"bash","state":{"status":"running","input":{}}}})"}));
  ASSERT_EQ(finished.size(), 2U);
  EXPECT_EQ(finished[0].call.id, "call_9");
  EXPECT_EQ(finished[0].exit_code, 0);
  EXPECT_FALSE(finished[0].is_error);
  EXPECT_EQ(finished[1].call.id, "call_10");
  EXPECT_TRUE(finished[1].is_error);
  EXPECT_EQ(finished[1].output, "file is read-only");
  EXPECT_FALSE(finished[1].exit_code.has_value());
}

TEST(OpencodeStream, V2StreamEndingWithAStopStepSucceedsAtTheEnd) {
  const auto events = parse({k_step_start, k_text, k_step_tools, k_final_text, k_step_stop});
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(testing::describe(events.back()), "result ok=true answer=[All tests pass.] error=[]");
  EXPECT_EQ(events_of<CliResult>(events).size(), 1U);
}

TEST(OpencodeStream, V2StreamCutAfterAToolStepGivesNoResult) {
  EXPECT_TRUE(events_of<CliResult>(parse({k_step_start, k_text, k_step_tools})).empty());
  EXPECT_TRUE(events_of<CliResult>(parse({k_step_start, k_text})).empty());
}

TEST(OpencodeStream, V1ErrorFailsTheRunAndALaterDoneChangesNothing) {
  const auto results = events_of<CliResult>(parse(
      {k_text,
       R"({"type":"error","timestamp":1,"sessionID":"ses_9x","error":{"name":"APIError","data":{"message":"Bad Gateway"}}})",
       R"({"type":"done","sessionID":"ses_9x"})"}));
  EXPECT_THAT(describe_all({results.begin(), results.end()}),
              ElementsAre("result ok=false answer=[] error=[APIError: Bad Gateway]"));
}

TEST(OpencodeStream, V2ErrorFailsTheRunEvenWhenAStopStepFollows) {
  const auto results = events_of<CliResult>(parse(
      {k_step_start,
       R"({"type":"error","timestamp":1,"sessionID":"ses_9x","error":{"type":"aborted","message":"Session interrupted: provider"}})",
       k_final_text, k_step_stop}));
  ASSERT_EQ(results.size(), 1U);
  EXPECT_FALSE(results[0].ok);
  EXPECT_EQ(results[0].error, "aborted: Session interrupted: provider");
}

TEST(OpencodeStream, SessionIsReportedOnce) {
  EXPECT_EQ(events_of<CliSession>(parse(v1_stream())).size(), 1U);
}

TEST(OpencodeStream, JunkBlankMalformedAndUnknownLinesAreSkipped) {
  EXPECT_TRUE(parse({"", "> build · gpt-5", "{\"type\":\"text\"",
                     R"({"type":"reasoning","part":{"text":"hm"}})",
                     R"({"type":"text","part":"not an object"})",
                     R"({"type":"tool_use","part":{}})", R"({"type":"step_start"})"})
                  .empty());
}

TEST(OpencodeStream, MegabyteLineIsReadWhole) {
  const auto texts = events_of<CliText>(parse(
      {testing::padded(R"({"type":"text","part":{"type":"text","text":")", 2 << 20, R"("}})")}));
  ASSERT_EQ(texts.size(), 1U);
  EXPECT_EQ(texts[0].text.size(), std::size_t{2} << 20);
}

TEST(OpencodeStream, CrLfLineEndingsChangeNothing) {
  EXPECT_EQ(describe_all(parse(testing::with_crlf(v1_stream()))), describe_all(parse(v1_stream())));
}

} // namespace
} // namespace ralph::agent
