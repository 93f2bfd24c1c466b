#include "cli/hook_install.h"
#include "cli/hook_protocol.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::cli {
namespace {

using json = nlohmann::json;

TEST(HookPayload, ClaudeStopGivesTheLastAssistantMessage) {
  const auto payload = parse_hook_payload(
      R"({"session_id":"s","cwd":"/w","hook_event_name":"Stop","stop_hook_active":true,)"
      R"("last_assistant_message":"Done.","background_tasks":[],"effort":{"level":"medium"}})",
      std::nullopt);
  ASSERT_TRUE(payload) << payload.error().message;
  EXPECT_EQ(payload->agent, HookAgent::claude);
  EXPECT_EQ(payload->answer, "Done.");
  EXPECT_TRUE(payload->stop_hook_active);
  EXPECT_EQ(payload->cwd, "/w");
}

TEST(HookPayload, CodexIsToldByItsTurnIdAndANullAnswerIsEmpty) {
  const auto payload = parse_hook_payload(
      R"({"session_id":"s","turn_id":"t","cwd":"/w","hook_event_name":"Stop",)"
      R"("stop_hook_active":false,"last_assistant_message":null,"transcript_path":null})",
      std::nullopt);
  ASSERT_TRUE(payload) << payload.error().message;
  EXPECT_EQ(payload->agent, HookAgent::codex);
  EXPECT_EQ(payload->answer, "");
}

TEST(HookPayload, GeminiAfterAgentGivesThePromptResponseAndThePrompt) {
  const auto payload = parse_hook_payload(
      R"({"session_id":"g","cwd":"/w","hook_event_name":"AfterAgent","prompt":"fix it",)"
      R"("prompt_response":"Fixed.","stop_hook_active":false})",
      std::nullopt);
  ASSERT_TRUE(payload) << payload.error().message;
  EXPECT_EQ(payload->agent, HookAgent::gemini);
  EXPECT_EQ(payload->answer, "Fixed.");
  EXPECT_EQ(payload->prompt, "fix it");
}

TEST(HookPayload, BadPayloadsSayWhatIsWrong) {
  const auto bad = [](const char* text, std::optional<HookAgent> agent = std::nullopt) {
    const auto payload = parse_hook_payload(text, agent);
    EXPECT_FALSE(payload) << text;
    return payload ? std::string() : payload.error().message;
  };
  EXPECT_NE(bad("not json").find("hook payload"), std::string::npos);
  EXPECT_NE(bad("[1]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(bad(R"({"cwd":"/w"})").find("session_id"), std::string::npos);
  EXPECT_NE(bad(R"({"session_id":"s"})").find("cwd"), std::string::npos);
  EXPECT_NE(bad(R"({"session_id":1,"cwd":"/w"})").find("not a string"), std::string::npos);
  EXPECT_NE(bad(R"({"session_id":"s","cwd":"/w","stop_hook_active":"yes"})").find("boolean"),
            std::string::npos);
  EXPECT_NE(
      bad(R"({"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse"})", HookAgent::claude)
          .find("PreToolUse"),
      std::string::npos);
}

TEST(HookTranscript, TheLatestPromptOfThePersonNotFeedbackOrToolResults) {
  testing::TempDir dir;
  const auto file = dir.write(
      "t.jsonl",
      R"({"type":"queue-operation"})"
      "\n"
      R"({"type":"user","message":{"role":"user","content":"first task"}})"
      "\n"
      R"({"type":"assistant","message":{"content":[{"type":"text","text":"Done."}]}})"
      "\n"
      R"({"type":"user","message":{"role":"user","content":[{"type":"text","text":"second "},{"type":"text","text":"task"}]}})"
      "\n"
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}})"
      "\n"
      R"({"type":"user","isMeta":true,"message":{"role":"user","content":"Stop hook feedback:\nfix it"}})"
      "\n"
      "{\"type\":\"user\", broken\n");
  EXPECT_EQ(last_prompt_in_transcript(file), "second task");
  EXPECT_EQ(last_prompt_in_transcript(dir.path() / "missing.jsonl"), "");
}

TEST(HookOutput, EachCliGetsItsOwnBlockAndNothingToAllow) {
  const HookDecision block{.block = true, .reason = "fix it"};
  EXPECT_EQ(hook_output(HookAgent::claude, block),
            "{\"decision\":\"block\",\"reason\":\"fix it\"}\n");
  EXPECT_EQ(hook_output(HookAgent::codex, block),
            "{\"decision\":\"block\",\"reason\":\"fix it\"}\n");
  EXPECT_EQ(hook_output(HookAgent::gemini, block),
            "{\"decision\":\"deny\",\"reason\":\"fix it\"}\n");
  EXPECT_EQ(hook_output(HookAgent::claude, HookDecision{}), "");
  EXPECT_EQ(hook_output(HookAgent::codex, HookDecision{.message = "budget"}),
            "{\"systemMessage\":\"budget\"}\n");
  // Codex takes an empty reason as a hook error, not a block.
  EXPECT_NE(json::parse(hook_output(HookAgent::codex, HookDecision{.block = true}))["reason"], "");
}

TEST(HookInstall, AHandEditedRalphLineCountsAsInstalled) {
  testing::TempDir dir;
  const auto file = dir.write(
      ".claude/settings.json",
      R"({"hooks":{"Stop":[{"hooks":[{"type":"command","command":"'/opt/my tools/ralph' hook --agent claude --verify-cmd 'make test'"}]}]}})");
  const auto added = install_hook(file, HookAgent::claude, "/usr/bin/ralph hook --agent claude");
  ASSERT_TRUE(added) << added.error().message;
  EXPECT_FALSE(*added);
  // ...and is what uninstall removes; a codex line in the same file is not claude's.
  EXPECT_TRUE(*uninstall_hook(file, HookAgent::claude));
  EXPECT_FALSE(*uninstall_hook(file, HookAgent::claude));
}

TEST(HookInstall, TheCommandQuotesAPathThatNeedsIt) {
  EXPECT_EQ(hook_command_line("/usr/bin/ralph", HookAgent::codex),
            "/usr/bin/ralph hook --agent codex");
  EXPECT_EQ(hook_command_line("/opt/it's here/ralph", HookAgent::claude),
            "'/opt/it'\\''s here/ralph' hook --agent claude");
}

TEST(HookTranscript, LinesWithFieldsOfTheWrongTypeAreSkippedNotThrown) {
  testing::TempDir dir;
  const auto file =
      dir.write("t.jsonl", R"({"type":"user","message":{"role":"user","content":"the task"}})"
                           "\n"
                           R"({"type":"user","isMeta":"yes","message":{"content":7}})"
                           "\n"
                           R"({"type":"user","message":"not an object"})"
                           "\n"
                           R"({"type":"user","message":{"content":[{"type":"text","text":5}]}})"
                           "\n"
                           R"({"type":"user","message":{"content":[{"type":7}]}})"
                           "\n");
  EXPECT_EQ(last_prompt_in_transcript(file), "the task");
}

} // namespace
} // namespace ralph::cli
