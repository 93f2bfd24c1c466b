#include "cli_stream_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::agent {
namespace {

using testing::describe_all;
using ::testing::ElementsAre;
using testing::events_of;

std::vector<CliEvent> parse(const std::vector<std::string>& lines) {
  return testing::parse_lines(CliFormat::gemini, lines);
}

std::vector<std::string> whole_stream() {
  return {
      R"({"type":"init","timestamp":"2026-08-21T10:00:00.000Z","session_id":"5b0c","model":"gemini-2.5-pro"})",
      R"({"type":"message","timestamp":"t","role":"user","content":"fix the failing test"})",
      R"({"type":"message","timestamp":"t","role":"assistant","content":"I'll run","delta":true})",
      R"({"type":"message","timestamp":"t","role":"assistant","content":" the tests.","delta":true})",
      R"({"type":"tool_use","timestamp":"t","tool_name":"run_shell_command","tool_id":"call_1","parameters":{"command":"make test"}})",
      R"({"type":"tool_result","timestamp":"t","tool_id":"call_1","status":"success","output":"FAIL parse_test"})",
      R"({"type":"error","timestamp":"t","severity":"warning","message":"Loop detected, stopping execution"})",
      R"({"type":"message","timestamp":"t","role":"assistant","content":"Fixed","delta":true})",
      R"({"type":"message","timestamp":"t","role":"assistant","content":" it.","delta":true})",
      R"({"type":"result","timestamp":"t","status":"success","stats":{"total_tokens":5120,"input_tokens":4800,"output_tokens":320,"cached":3000,"input":1800,"duration_ms":9120,"tool_calls":3,"models":{}}})"};
}

TEST(GeminiStream, WholeStreamGivesSessionDeltasToolCallNoticeUsageAndResult) {
  EXPECT_THAT(
      describe_all(parse(whole_stream())),
      ElementsAre(
          "session 5b0c gemini-2.5-pro", "text delta [I'll run]", "text delta [ the tests.]",
          R"(started call_1 run_shell_command {"command":"make test"})",
          R"(finished call_1 run_shell_command {"command":"make test"} error=false exit=none [FAIL parse_test])",
          "notice [warning: Loop detected, stopping execution]", "text delta [Fixed]",
          "text delta [ it.]", "usage in=4800 out=320 read=3000 write=0 cost=none thread=false",
          "result ok=true answer=[Fixed it.] error=[]"));
}

TEST(GeminiStream, FailedToolResultCarriesItsErrorMessage) {
  const auto finished = events_of<CliToolFinished>(parse(
      {R"({"type":"tool_use","tool_name":"read_file","tool_id":"c2","parameters":{"path":"x"}})",
       R"({"type":"tool_result","tool_id":"c2","status":"error","output":"","error":{"type":"FILE_NOT_FOUND","message":"File not found: x"}})"}));
  ASSERT_EQ(finished.size(), 1U);
  EXPECT_TRUE(finished[0].is_error);
  EXPECT_EQ(finished[0].output, "File not found: x");
  EXPECT_EQ(finished[0].call.name, "read_file");
}

TEST(GeminiStream, ErrorResultFailsTheRunWithItsMessage) {
  const auto results = events_of<CliResult>(parse(
      {R"({"type":"message","role":"assistant","content":"partial","delta":true})",
       R"({"type":"result","status":"error","error":{"type":"FatalTurnLimitedError","message":"Reached max session turns"},"stats":{"duration_ms":0}})"}));
  ASSERT_EQ(results.size(), 1U);
  EXPECT_FALSE(results[0].ok);
  EXPECT_EQ(results[0].error, "Reached max session turns");
}

TEST(GeminiStream, WholeAssistantMessageIsNotADelta) {
  EXPECT_THAT(describe_all(parse({R"({"type":"message","role":"assistant","content":"Done."})"})),
              ElementsAre("text [Done.]"));
}

TEST(GeminiStream, MissingResultGivesNoResult) {
  auto lines = whole_stream();
  lines.pop_back();
  EXPECT_TRUE(events_of<CliResult>(parse(lines)).empty());
}

TEST(GeminiStream, JunkBlankMalformedAndUnknownLinesAreSkipped) {
  EXPECT_TRUE(parse({"", "Loaded cached credentials.", "{\"type\":\"init\"", "{}",
                     R"({"type":"thought","content":"x"})",
                     R"({"type":"message","role":"user","content":"echoed prompt"})",
                     R"({"type":"message","role":"assistant","content":7})"})
                  .empty());
}

TEST(GeminiStream, MegabyteLineIsReadWhole) {
  const auto texts = events_of<CliText>(parse({testing::padded(
      R"({"type":"message","role":"assistant","content":")", 2 << 20, R"(","delta":true})")}));
  ASSERT_EQ(texts.size(), 1U);
  EXPECT_EQ(texts[0].text.size(), std::size_t{2} << 20);
}

TEST(GeminiStream, CrLfLineEndingsChangeNothing) {
  EXPECT_EQ(describe_all(parse(testing::with_crlf(whole_stream()))),
            describe_all(parse(whole_stream())));
}

} // namespace
} // namespace ralph::agent
