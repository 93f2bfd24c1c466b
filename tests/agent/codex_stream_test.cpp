#include "cli_stream_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>

namespace ralph::agent {
namespace {

using testing::describe_all;
using ::testing::ElementsAre;
using testing::events_of;

std::vector<CliEvent> parse(const std::vector<std::string>& lines) {
  return testing::parse_lines(CliFormat::codex, lines);
}

std::vector<std::string> whole_stream() {
  return {
      R"({"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"})",
      R"({"type":"turn.started"})",
      R"({"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Running the test suite**"}})",
      R"({"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'make test'","aggregated_output":"","exit_code":null,"status":"in_progress"}})",
      R"({"type":"item.updated","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'make test'","aggregated_output":"FAIL","exit_code":null,"status":"in_progress"}})",
      R"({"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'make test'","aggregated_output":"FAIL parse_test\n","exit_code":2,"status":"failed"}})",
      R"({"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"/w/repo/src/parse.cc","kind":"update"},{"path":"/w/repo/NEW","kind":"add"}],"status":"completed"}})",
      R"({"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"Fixed the parser; make test passes."}})",
      R"({"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":1220}})"};
}

TEST(CodexStream, WholeStreamGivesSessionToolCallsTextUsageAndResult) {
  EXPECT_THAT(
      describe_all(parse(whole_stream())),
      ElementsAre(
          "session 0199a213-81c0-7800-8aa1-bbab2a035a53 ",
          R"(started item_1 shell {"command":"/bin/bash -lc 'make test'"})",
          "finished item_1 shell {\"command\":\"/bin/bash -lc 'make test'\"} error=true exit=2 "
          "[FAIL parse_test\n]",
          R"(started item_2 file_change {"changes":[{"kind":"update","path":"/w/repo/src/parse.cc"},{"kind":"add","path":"/w/repo/NEW"}]})",
          R"(finished item_2 file_change {"changes":[{"kind":"update","path":"/w/repo/src/parse.cc"},{"kind":"add","path":"/w/repo/NEW"}]} error=false exit=none [update /w/repo/src/parse.cc)"
          "\nadd /w/repo/NEW]",
          "text [Fixed the parser; make test passes.]",
          "usage in=24763 out=1220 read=24448 write=0 cost=none thread=true",
          "result ok=true answer=[Fixed the parser; make test passes.] error=[]"));
}

TEST(CodexStream, ExitCodeDecidesACompletedCommand) {
  const auto finished = events_of<CliToolFinished>(parse(
      {R"({"type":"item.completed","item":{"id":"a","type":"command_execution","command":"true","aggregated_output":"","exit_code":0,"status":"completed"}})",
       R"({"type":"item.completed","item":{"id":"b","type":"command_execution","command":"x","aggregated_output":"","exit_code":1,"status":"completed"}})",
       R"({"type":"item.completed","item":{"id":"c","type":"command_execution","command":"rm -rf /","aggregated_output":"","exit_code":null,"status":"declined"}})"}));
  ASSERT_EQ(finished.size(), 3U);
  EXPECT_FALSE(finished[0].is_error);
  EXPECT_EQ(finished[0].exit_code, 0);
  EXPECT_TRUE(finished[1].is_error);
  EXPECT_TRUE(finished[2].is_error);
  EXPECT_FALSE(finished[2].exit_code.has_value());
}

TEST(CodexStream, McpToolCallStartsAndFinishes) {
  EXPECT_THAT(
      describe_all(parse(
          {R"({"type":"item.started","item":{"id":"item_5","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"result":null,"error":null,"status":"in_progress"}})",
           R"({"type":"item.completed","item":{"id":"item_5","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"result":{"content":[{"type":"text","text":"hit"}],"structured_content":null},"error":null,"status":"completed"}})",
           R"({"type":"item.started","item":{"id":"item_6","type":"mcp_tool_call","server":"docs","tool":"get","arguments":{},"status":"in_progress"}})",
           R"({"type":"item.completed","item":{"id":"item_6","type":"mcp_tool_call","server":"docs","tool":"get","arguments":{},"result":null,"error":{"message":"no such page"},"status":"failed"}})"})),
      ElementsAre(R"(started item_5 docs__search {"q":"x"})",
                  R"(finished item_5 docs__search {"q":"x"} error=false exit=none [hit])",
                  "started item_6 docs__get {}",
                  "finished item_6 docs__get {} error=true exit=none [no such page]"));
}

TEST(CodexStream, ErrorLinesAreNoticesAndTurnFailedFailsTheRun) {
  EXPECT_THAT(
      describe_all(parse(
          {R"({"type":"item.completed","item":{"id":"item_0","type":"error","message":"model rerouted"}})",
           R"({"type":"error","message":"stream disconnected before completion: eof"})",
           R"({"type":"turn.failed","error":{"message":"stream disconnected before completion: eof"}})"})),
      ElementsAre("notice [model rerouted]", "notice [stream disconnected before completion: eof]",
                  "result ok=false answer=[] error=[stream disconnected before completion: eof]"));
}

TEST(CodexStream, OldItemTypeAndAssistantMessageSpellingsAreRead) {
  EXPECT_THAT(
      describe_all(parse(
          {R"({"type":"item.completed","item":{"id":"item_0","item_type":"assistant_message","text":"old style"}})",
           R"({"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":2}})"})),
      ElementsAre("text [old style]", "usage in=1 out=2 read=0 write=0 cost=none thread=true",
                  "result ok=true answer=[old style] error=[]"));
}

TEST(CodexStream, AnswerIsTheLastAgentMessage) {
  const auto results = events_of<CliResult>(parse(
      {R"({"type":"item.completed","item":{"id":"1","type":"agent_message","text":"first"}})",
       R"({"type":"item.completed","item":{"id":"2","type":"agent_message","text":"second"}})",
       R"({"type":"turn.completed","usage":{}})"}));
  ASSERT_EQ(results.size(), 1U);
  EXPECT_EQ(results[0].answer, "second");
}

TEST(CodexStream, InterruptedTurnGivesNoResult) {
  auto lines = whole_stream();
  lines.pop_back();
  EXPECT_TRUE(events_of<CliResult>(parse(lines)).empty());
}

TEST(CodexStream, JunkBlankMalformedAndUnknownLinesAreSkipped) {
  EXPECT_TRUE(
      parse({"", "Reading prompt from stdin...",
             "{\"type\":", R"({"type":"item.plan.delta","item_id":"x","delta":"d"})",
             R"({"type":"request_user_input","id":"1","call_id":"c","questions":[]})",
             R"({"type":"item.completed","item":{"id":"t","type":"todo_list","items":[]}})",
             R"({"type":"item.started","item":"oops"})",
             R"({"type":"item.completed","item":{"id":"w","type":"web_search","query":"q"}})"})
          .empty());
}

TEST(CodexStream, MegabyteOutputIsReadWhole) {
  const auto finished = events_of<CliToolFinished>(parse({testing::padded(
      R"({"type":"item.completed","item":{"id":"i","type":"command_execution","command":"cat big","aggregated_output":")",
      2 << 20, R"(","exit_code":0,"status":"completed"}})")}));
  ASSERT_EQ(finished.size(), 1U);
  EXPECT_EQ(finished[0].output.size(), std::size_t{2} << 20);
}

TEST(CodexStream, CrLfLineEndingsChangeNothing) {
  EXPECT_EQ(describe_all(parse(testing::with_crlf(whole_stream()))),
            describe_all(parse(whole_stream())));
}

// The local time `hour`:`minute` of the day `days` from today, as mktime reads it.
std::chrono::system_clock::time_point local_time(int days, int hour, int minute) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  local.tm_mday += days;
  local.tm_hour = hour;
  local.tm_min = minute;
  local.tm_sec = 0;
  local.tm_isdst = -1;
  return std::chrono::system_clock::from_time_t(std::mktime(&local));
}

// Codex 0.169.0's own words on a plan's usage limit (the real CLI against a server answering 429
// {"error":{"type":"usage_limit_reached","plan_type":"plus","resets_at":…}}).
TEST(CodexStream, AUsageLimitSaysWhenItResetsInTheLocalTime) {
  const auto today = events_of<CliResult>(parse(
      {R"({"type":"turn.failed","error":{"message":"You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 5:44 PM."}})"}));
  ASSERT_EQ(today.size(), 1U);
  EXPECT_FALSE(today[0].ok);
  EXPECT_TRUE(today[0].usage_limit);
  EXPECT_EQ(today[0].resets_at, local_time(0, 17, 44));
  EXPECT_THAT(today[0].error, ::testing::HasSubstr("hit your usage limit"));

  // Another day: the date comes too; without a plan the words are shorter.
  std::tm date{};
  date.tm_year = 2026 - 1900;
  date.tm_mon = 10;
  date.tm_mday = 29;
  date.tm_hour = 8;
  date.tm_min = 44;
  date.tm_isdst = -1;
  const auto later = events_of<CliResult>(parse(
      {R"({"type":"turn.failed","error":{"message":"You’ve hit your usage limit. Try again at Nov 29th, 2026 8:44 AM."}})"}));
  ASSERT_EQ(later.size(), 1U);
  EXPECT_TRUE(later[0].usage_limit);
  EXPECT_EQ(later[0].resets_at, std::chrono::system_clock::from_time_t(std::mktime(&date)));

  // No time said: a limit whose reset is unknown. Another failure: no limit at all.
  const auto unknown = events_of<CliResult>(parse(
      {R"({"type":"turn.failed","error":{"message":"You’ve hit your usage limit."}})",
       R"({"type":"turn.failed","error":{"message":"stream disconnected before completion"}})"}));
  ASSERT_EQ(unknown.size(), 2U);
  EXPECT_TRUE(unknown[0].usage_limit);
  EXPECT_EQ(unknown[0].resets_at, std::nullopt);
  EXPECT_FALSE(unknown[1].usage_limit);
}

} // namespace
} // namespace ralph::agent
