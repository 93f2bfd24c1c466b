#include "cli_stream_test_support.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>

namespace ralph::agent {
namespace {

using testing::describe_all;
using ::testing::ElementsAre;
using testing::events_of;
using testing::parse_lines;

std::vector<CliEvent> parse(const std::vector<std::string>& lines) {
  return parse_lines(CliFormat::claude, lines);
}

const std::string k_init =
    R"({"type":"system","subtype":"init","cwd":"/w/repo","session_id":"8c1d","tools":["Task","Bash"],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"bypassPermissions","apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.240","uuid":"u1"})";
const std::string k_text =
    R"({"type":"assistant","message":{"id":"msg_01Ab","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Running the tests."}],"stop_reason":null,"usage":{"input_tokens":3,"cache_creation_input_tokens":812,"cache_read_input_tokens":14020,"output_tokens":9}},"parent_tool_use_id":null,"session_id":"8c1d","uuid":"u2"})";
const std::string k_tool_use =
    R"({"type":"assistant","message":{"id":"msg_01Ab","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_01Xy","name":"Bash","input":{"command":"make test","description":"Run tests"}}],"usage":{"input_tokens":3,"cache_creation_input_tokens":812,"cache_read_input_tokens":14020,"output_tokens":40}},"parent_tool_use_id":null,"session_id":"8c1d","uuid":"u3"})";
const std::string k_tool_result =
    R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01Xy","content":"Exit code 2\nFAIL parse_test","is_error":true}]},"parent_tool_use_id":null,"session_id":"8c1d","uuid":"u4","tool_use_result":{"stdout":"FAIL parse_test\n","stderr":"","interrupted":false,"isImage":false}})";
const std::string k_final_text =
    R"({"type":"assistant","message":{"id":"msg_02Cd","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"All 42 tests pass."}],"usage":{"input_tokens":5,"output_tokens":7}},"parent_tool_use_id":null,"session_id":"8c1d"})";
const std::string k_result =
    R"({"type":"result","subtype":"success","is_error":false,"duration_ms":48211,"num_turns":7,"result":"All 42 tests pass.","stop_reason":"end_turn","session_id":"8c1d","total_cost_usd":0.1834,"usage":{"input_tokens":41,"cache_creation_input_tokens":9120,"cache_read_input_tokens":210334,"output_tokens":2210,"server_tool_use":{"web_search_requests":0},"service_tier":"standard"},"modelUsage":{"claude-sonnet-4-5":{"inputTokens":41,"outputTokens":2210,"costUSD":0.1834}},"permission_denials":[],"terminal_reason":"completed","uuid":"u9"})";

std::vector<std::string> whole_stream() {
  return {k_init, k_text, k_tool_use, k_tool_result, k_final_text, k_result};
}

TEST(ClaudeStream, WholeStreamGivesSessionTextToolCallUsageAndResult) {
  EXPECT_THAT(
      describe_all(parse(whole_stream())),
      ElementsAre(
          "session 8c1d claude-sonnet-4-5", "text [Running the tests.]",
          R"(started toolu_01Xy Bash {"command":"make test","description":"Run tests"})",
          R"(finished toolu_01Xy Bash {"command":"make test","description":"Run tests"} error=true exit=2 [Exit code 2)"
          "\nFAIL parse_test]",
          "text [All 42 tests pass.]",
          "usage in=219495 out=2210 read=210334 write=9120 cost=0.1834 thread=false",
          "result ok=true answer=[All 42 tests pass.] error=[]"));
}

TEST(ClaudeStream, UsageComesOnlyFromTheResultNeverSummedOverBlocksOfOneMessage) {
  // Both blocks of msg_01Ab repeat the response's usage; summing them would double it.
  const auto usage = events_of<CliUsage>(parse({k_text, k_tool_use, k_result}));
  ASSERT_EQ(usage.size(), 1U);
  EXPECT_EQ(usage[0].usage.output_tokens, 2210);
  EXPECT_EQ(usage[0].usage.input_tokens, 41 + 9120 + 210334);
  EXPECT_FALSE(usage[0].thread_total);
}

TEST(ClaudeStream, ToolResultTextBlocksAreJoined) {
  const auto finished = events_of<CliToolFinished>(parse(
      {k_tool_use,
       R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01Xy","content":[{"type":"text","text":"line one"},{"type":"image","source":{}},{"type":"text","text":"line two"}]}]},"parent_tool_use_id":null})"}));
  ASSERT_EQ(finished.size(), 1U);
  EXPECT_EQ(finished[0].output, "line one\nline two");
  EXPECT_FALSE(finished[0].is_error);
  EXPECT_FALSE(finished[0].exit_code.has_value());
}

// A Bash result as Claude Code 2.1.330 prints it: when the command failed, the text starts with
// "Exit code N" and tool_use_result is that text after "Error: "; else tool_use_result holds the
// command's stdout.
std::string bash_result(std::string_view content, bool is_error, std::string_view extra = {}) {
  const std::string use_result =
      is_error
          ? nlohmann::json("Error: " + std::string(content)).dump()
          : fmt::format(R"({{"stdout":"out","stderr":"","interrupted":false,"isImage":false{}}})",
                        extra);
  return fmt::format(
      R"({{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_01Xy","content":{},"is_error":{}}}]}},"parent_tool_use_id":null,"tool_use_result":{}}})",
      nlohmann::json(content).dump(), is_error, use_result);
}

std::optional<int> exit_code_of(const std::string& result_line) {
  const auto finished = events_of<CliToolFinished>(parse({k_tool_use, result_line}));
  EXPECT_EQ(finished.size(), 1U);
  return finished.empty() ? std::nullopt : finished[0].exit_code;
}

TEST(ClaudeStream, BashResultsGiveTheExitCodeClaudeCodeImplies) {
  // Not an error: the command exited 0.
  EXPECT_EQ(exit_code_of(bash_result("PASS: test_add", false)), 0);
  // An error: the "Exit code N" line before the output (or after it).
  EXPECT_EQ(exit_code_of(bash_result("Exit code 3\nFAIL: test_add", true)), 3);
  EXPECT_EQ(exit_code_of(bash_result("FAIL parse_test\nExit code 2", true)), 2);
  // grep, diff, test ... exiting 1 is no error for Claude Code; it says what 1 meant.
  EXPECT_EQ(
      exit_code_of(bash_result("", false, R"(,"returnCodeInterpretation":"No matches found")")), 1);
  // An error without the line (a refused or failed spawn), an interrupted or backgrounded
  // command: no exit code.
  EXPECT_EQ(exit_code_of(bash_result("Error: permission denied", true)), std::nullopt);
  EXPECT_EQ(exit_code_of(bash_result("output says Exit code 0 in the middle", true)), std::nullopt);
  EXPECT_EQ(
      exit_code_of(
          R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01Xy","content":"partial","is_error":false}]},"tool_use_result":{"stdout":"partial","stderr":"","interrupted":true,"isImage":false}})"),
      std::nullopt);
  EXPECT_EQ(
      exit_code_of(bash_result("Running in the background", false, R"(,"backgroundTaskId":"b1")")),
      std::nullopt);
  // Another tool's error: no exit code, whatever its text.
  const auto read = events_of<CliToolFinished>(parse(
      {R"({"type":"assistant","message":{"id":"m3","content":[{"type":"tool_use","id":"toolu_r","name":"Read","input":{"file_path":"x"}}]},"parent_tool_use_id":null})",
       R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_r","content":"Exit code 2","is_error":true}]},"tool_use_result":"Error: Exit code 2"})"}));
  ASSERT_EQ(read.size(), 1U);
  EXPECT_EQ(read[0].exit_code, std::nullopt);
  // A result that is no error but not of the Bash shape (Read's, on the Bash call): none either.
  EXPECT_EQ(
      exit_code_of(
          R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01Xy","content":"1 hello","is_error":false}]},"tool_use_result":{"type":"text","file":{"filePath":"a.txt"}}})"),
      std::nullopt);
}

TEST(ClaudeStream, ApiErrorReportedAsSuccessSubtypeWithIsErrorFailsTheRun) {
  const auto results = events_of<CliResult>(parse(
      {R"({"type":"result","subtype":"success","is_error":true,"num_turns":1,"result":"API Error: Rate limit reached","api_error_status":429,"session_id":"8c1d","total_cost_usd":0})"}));
  ASSERT_EQ(results.size(), 1U);
  EXPECT_FALSE(results[0].ok);
  EXPECT_EQ(results[0].answer, "");
  EXPECT_EQ(results[0].error, "API Error: Rate limit reached (API HTTP status 429)");
}

TEST(ClaudeStream, ErrorSubtypeWithoutResultJoinsItsErrors) {
  const auto events = parse(
      {R"j({"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":41,"total_cost_usd":0.93,"usage":{"input_tokens":10,"output_tokens":2},"errors":["Reached maximum number of turns (40)","second"],"terminal_reason":"max_turns"})j"});
  EXPECT_THAT(describe_all(events),
              ElementsAre("usage in=10 out=2 read=0 write=0 cost=0.93 thread=false",
                          "result ok=false answer=[] error=[Reached maximum number of turns "
                          "(40); second]"));
}

TEST(ClaudeStream, ErrorSubtypeWithNothingElseIsNamed) {
  const auto results = events_of<CliResult>(
      parse({R"({"type":"result","subtype":"error_during_execution","is_error":true})"}));
  ASSERT_EQ(results.size(), 1U);
  EXPECT_EQ(results[0].error, "claude ended with error_during_execution");
}

TEST(ClaudeStream, OlderCostKeysAreRead) {
  const auto older = events_of<CliUsage>(parse(
      {R"({"type":"result","subtype":"success","is_error":false,"result":"ok","total_cost":0.5,"usage":{}})"}));
  const auto oldest = events_of<CliUsage>(
      parse({R"({"type":"result","subtype":"success","result":"ok","cost_usd":0.25})"}));
  ASSERT_EQ(older.size(), 1U);
  ASSERT_EQ(oldest.size(), 1U);
  EXPECT_EQ(older[0].cost_usd, 0.5);
  EXPECT_EQ(oldest[0].cost_usd, 0.25);
}

TEST(ClaudeStream, SubagentToolCallsAreReportedButNotItsText) {
  const auto events = parse(
      {R"({"type":"assistant","message":{"id":"m9","content":[{"type":"tool_use","id":"toolu_task","name":"Task","input":{"prompt":"look"}}]},"parent_tool_use_id":null})",
       R"({"type":"assistant","message":{"id":"m10","content":[{"type":"text","text":"subagent musing"},{"type":"tool_use","id":"toolu_sub","name":"Read","input":{"file_path":"a.txt"}}]},"parent_tool_use_id":"toolu_task"})",
       R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_sub","content":"hello"}]},"parent_tool_use_id":"toolu_task"})",
       R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_task","content":[{"type":"text","text":"found it"}]}]},"parent_tool_use_id":null})"});
  EXPECT_THAT(
      describe_all(events),
      ElementsAre(
          R"(started toolu_task Task {"prompt":"look"})",
          R"(started toolu_sub Read {"file_path":"a.txt"})",
          R"(finished toolu_sub Read {"file_path":"a.txt"} error=false exit=none [hello])",
          R"(finished toolu_task Task {"prompt":"look"} error=false exit=none [found it])"));
}

TEST(ClaudeStream, ResultForAnUnseenCallIsStartedFirst) {
  EXPECT_THAT(
      describe_all(parse(
          {R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"out"}]}})"})),
      ElementsAre("started toolu_x  {}", "finished toolu_x  {} error=false exit=none [out]"));
}

TEST(ClaudeStream, AssistantLineErrorIsANotice) {
  EXPECT_THAT(
      describe_all(parse(
          {R"({"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"Invalid API key"}]},"error":"authentication_failed","parent_tool_use_id":null})"})),
      ElementsAre("notice [claude: assistant message error: authentication_failed]",
                  "text [Invalid API key]"));
}

TEST(ClaudeStream, JunkBlankMalformedAndUnknownLinesAreSkipped) {
  std::vector<std::string> lines = {
      "",
      "   ",
      "debug: starting",
      "{not json",
      "[1,2,3]",
      R"({"type":"rate_limit_event","rate_limit_info":{"status":"allowed"}})",
      R"({"type":"stream_event","event":{"type":"content_block_delta"}})",
      R"({"type":"system","subtype":"hook_started"})",
      R"({"type":"conversation_reset"})",
      R"({"type":"assistant","message":"not an object"})",
      R"({"type":"user","message":{"content":"a plain prompt"}})",
      R"({"type":42})",
      R"({"no_type":true})"};
  EXPECT_TRUE(parse(lines).empty());
  const auto stream = whole_stream();
  lines.insert(lines.end(), stream.begin(), stream.end());
  EXPECT_EQ(describe_all(parse(lines)), describe_all(parse(whole_stream())));
}

TEST(ClaudeStream, MegabyteLineIsReadWhole) {
  const std::string big(3 << 20, 'x');
  const auto texts = events_of<CliText>(parse({testing::padded(
      R"({"type":"assistant","message":{"id":"m","content":[{"type":"text","text":")", big.size(),
      R"("}]},"parent_tool_use_id":null})")}));
  ASSERT_EQ(texts.size(), 1U);
  EXPECT_EQ(texts[0].text, big);
}

TEST(ClaudeStream, StreamCutBeforeTheResultGivesNoResult) {
  EXPECT_TRUE(events_of<CliResult>(parse({k_init, k_text, k_tool_use})).empty());
}

TEST(ClaudeStream, CrLfLineEndingsChangeNothing) {
  EXPECT_EQ(describe_all(parse(testing::with_crlf(whole_stream()))),
            describe_all(parse(whole_stream())));
}

// What Claude Code 2.1.330 printed when its server refused a request for the plan's usage limit
// (429, anthropic-ratelimit-unified-status: rejected; shortened).
TEST(ClaudeStream, AUsageLimitSaysWhenItResets) {
  const auto results = events_of<CliResult>(parse(
      {R"({"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1795844621,"rateLimitType":"five_hour","isUsingOverage":false},"session_id":"fea6"})",
       R"j({"type":"assistant","message":{"id":"00f1","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"You've hit your 5-hour limit · resets 5:43am (UTC)"}]},"parent_tool_use_id":null,"session_id":"fea6","error":"rate_limit","is_api_error_message":true,"api_error_status":429,"api_error":"usage_limit_reached","api_error_params":{"rate_limit_info":{"status":"rejected","resetsAt":1795844621,"rateLimitType":"five_hour","isUsingOverage":false}},"api_error_type":"rate_limit_error"})j",
       R"j({"type":"result","subtype":"success","is_error":true,"num_turns":1,"api_error_status":429,"api_error_type":"rate_limit_error","api_error":"usage_limit_reached","result":"You've hit your 5-hour limit · resets 5:43am (UTC)","session_id":"fea6","total_cost_usd":0,"terminal_reason":"api_error"})j"}));
  ASSERT_EQ(results.size(), 1U);
  EXPECT_FALSE(results[0].ok);
  EXPECT_TRUE(results[0].usage_limit);
  EXPECT_EQ(results[0].resets_at,
            std::chrono::system_clock::time_point(std::chrono::seconds(1795844621)));
  EXPECT_THAT(results[0].error, ::testing::HasSubstr("You've hit your 5-hour limit"));
  // A rate limit of an API key is no plan's limit: Claude Code retried it, then gave up.
  const auto api = events_of<CliResult>(parse(
      {R"({"type":"result","subtype":"success","is_error":true,"num_turns":1,"api_error_status":429,"api_error_type":"rate_limit_error","result":"API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later."})"}));
  ASSERT_EQ(api.size(), 1U);
  EXPECT_FALSE(api[0].usage_limit);
}

} // namespace
} // namespace ralph::agent
