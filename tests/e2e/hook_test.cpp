// `ralph hook` end to end: each agent CLI's Stop payload on stdin, the exact answer on stdout,
// the session kept across calls with its budgets, the errors that must never trap the agent, and
// `ralph hook install|uninstall` on settings files with other content.
#include "e2e_support.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;
using ordered = nlohmann::ordered_json;

class HookEndToEnd : public ::testing::Test {
protected:
  HookEndToEnd() {
    workspace.write("test.sh", k_test_script);
    workspace.write("add.sh", k_broken_add);
    workspace.write(".ralph/config.toml", "[verify]\ncommands = [\"sh test.sh\"]\n");
  }

  json claude_stop(const std::string& session, bool active = false) const {
    return {{"session_id", session},
            {"transcript_path", "/nonexistent/transcript.jsonl"},
            {"cwd", workspace.path().string()},
            {"permission_mode", "bypassPermissions"},
            {"hook_event_name", "Stop"},
            {"stop_hook_active", active},
            {"last_assistant_message", "add.sh is fixed."}};
  }

  // `ralph hook` run from another directory, as the agent CLI runs it.
  RalphOutput hook(const json& payload, std::vector<std::string> flags = {}) const {
    std::vector<std::string> args{"hook"};
    args.insert(args.end(), flags.begin(), flags.end());
    return run_ralph_with_input(args, elsewhere.path(), payload.dump());
  }

  TempDir workspace;
  TempDir elsewhere;
};

// The one JSON object a hook printed; stdout must hold nothing else.
json decision(const RalphOutput& out) {
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(std::count(out.out.begin(), out.out.end(), '\n'), 1) << out.out;
  return parse_output(out);
}

TEST_F(HookEndToEnd, ClaudeStopWithAFailingCheckIsBlockedWithTheChecksFeedback) {
  const RalphOutput out = hook(claude_stop("s1"), {"--agent", "claude"});
  const json answer = decision(out);
  EXPECT_EQ(answer["decision"], "block");
  const std::string reason = answer["reason"];
  EXPECT_THAT(reason, HasSubstr("FAIL: test_add: expected 5, got -1"));
  EXPECT_THAT(reason, HasSubstr("[command: sh test.sh] fail test_failed"));
  EXPECT_THAT(reason, HasSubstr("attempt 1 of 3"));
  EXPECT_EQ(answer.size(), 2u) << answer; // decision and reason only
}

TEST_F(HookEndToEnd, APassingCheckLetsTheStopThroughAndRecordsTheSessionVerified) {
  workspace.write("add.sh", k_fixed_add);
  const RalphOutput out = hook(claude_stop("s1"), {"--agent", "claude"});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.out, "");
  const json shown = show_session("claude-s1", workspace.path());
  EXPECT_EQ(shown["status"], "completed") << shown;
  EXPECT_EQ(shown["verified"], true) << shown;
  const RalphOutput list = run_ralph({"sessions", "list", "--json"}, workspace.path());
  EXPECT_THAT(list.out, HasSubstr("\"id\":\"claude-s1\""));
}

TEST_F(HookEndToEnd, CodexIsToldFromItsPayloadAndGetsABlockWithANonEmptyReason) {
  json payload = claude_stop("019a-codex");
  payload["turn_id"] = "t1";
  payload["model"] = "gpt-5.5";
  const json answer = decision(hook(payload));
  EXPECT_EQ(answer["decision"], "block");
  EXPECT_THAT(answer["reason"].get<std::string>(), HasSubstr("FAIL: test_add"));
  EXPECT_EQ(show_session("codex-019a-codex", workspace.path())["status"], "active");
}

TEST_F(HookEndToEnd, GeminiAfterAgentIsDeniedWithTheFeedbackAndItsPromptIsTheGoal) {
  const json payload = {{"session_id", "g1"},
                        {"transcript_path", ""},
                        {"cwd", workspace.path().string()},
                        {"hook_event_name", "AfterAgent"},
                        {"timestamp", "2026-11-24T01:00:00Z"},
                        {"prompt", "fix add.sh"},
                        {"prompt_response", "Done."},
                        {"stop_hook_active", false}};
  const json answer = decision(hook(payload, {"--agent", "gemini"}));
  EXPECT_EQ(answer["decision"], "deny");
  EXPECT_THAT(answer["reason"].get<std::string>(), HasSubstr("FAIL: test_add"));
  const json shown = show_session("gemini-g1", workspace.path());
  EXPECT_EQ(shown["goal"], "fix add.sh");
  EXPECT_EQ(shown["attempts"][0]["answer"], "Done.");
}

TEST_F(HookEndToEnd, TheBudgetHoldsAcrossCallsAndLetsTheStopThroughWithAMessageWhenItRunsOut) {
  EXPECT_EQ(decision(hook(claude_stop("s1")))["decision"], "block");
  const json second = decision(hook(claude_stop("s1", true)));
  EXPECT_EQ(second["decision"], "block");
  EXPECT_THAT(second["reason"].get<std::string>(), HasSubstr("attempt 2 of 3"));
  const RalphOutput third = hook(claude_stop("s1", true));
  const json let_through = decision(third);
  EXPECT_FALSE(let_through.contains("decision")) << let_through;
  const std::string message = let_through["systemMessage"];
  EXPECT_THAT(message, HasSubstr("verification still fails after 3 attempts"));
  EXPECT_THAT(message, HasSubstr("iteration budget"));
  EXPECT_THAT(message, HasSubstr("FAIL: test_add"));
  EXPECT_THAT(third.err, HasSubstr("verification still fails")); // said to the person too
  const json shown = show_session("claude-s1", workspace.path());
  EXPECT_EQ(shown["status"], "budget_exhausted");
  ASSERT_EQ(shown["attempts"].size(), 3u);
  EXPECT_EQ(shown["attempts"][2]["verdicts"][0]["result"], "fail");
  EXPECT_THAT(shown["attempts"][0]["feedback"].get<std::string>(), HasSubstr("FAIL: test_add"));

  // Another hook blocked after ralph let it through: the spent budget still holds.
  EXPECT_FALSE(decision(hook(claude_stop("s1", true))).contains("decision"));
  // The person's next prompt starts a new round with its own budget.
  const json next_round = decision(hook(claude_stop("s1", false)));
  EXPECT_EQ(next_round["decision"], "block");
  EXPECT_THAT(next_round["reason"].get<std::string>(), HasSubstr("attempt 1 of 3"));
}

TEST_F(HookEndToEnd, MaxIterationsFromTheHookCommandBoundsTheBlocks) {
  EXPECT_EQ(decision(hook(claude_stop("s1"), {"--max-iterations", "2"}))["decision"], "block");
  EXPECT_TRUE(
      decision(hook(claude_stop("s1", true), {"--max-iterations", "2"})).contains("systemMessage"));
}

TEST_F(HookEndToEnd, AStopThatFollowsAnotherHooksBlockIsStillVerified) {
  const json answer = decision(hook(claude_stop("s1", true)));
  EXPECT_EQ(answer["decision"], "block");
  workspace.write("add.sh", k_fixed_add);
  EXPECT_EQ(hook(claude_stop("s1", true)).out, "");
  EXPECT_EQ(show_session("claude-s1", workspace.path())["status"], "completed");
}

TEST_F(HookEndToEnd, TwoAgentSessionsKeepTheirOwnBudgets) {
  EXPECT_THAT(decision(hook(claude_stop("a")))["reason"].get<std::string>(),
              HasSubstr("attempt 1 of 3"));
  EXPECT_THAT(decision(hook(claude_stop("b")))["reason"].get<std::string>(),
              HasSubstr("attempt 1 of 3"));
  EXPECT_THAT(decision(hook(claude_stop("a", true)))["reason"].get<std::string>(),
              HasSubstr("attempt 2 of 3"));
  EXPECT_EQ(show_session("claude-a", workspace.path())["attempts"].size(), 2u);
  EXPECT_EQ(show_session("claude-b", workspace.path())["attempts"].size(), 1u);
}

TEST_F(HookEndToEnd, TheTimeBudgetCountsFromTheFirstStop) {
  const RalphOutput out =
      hook(claude_stop("s1"), {"--verify-cmd", "sleep 1.2; exit 1", "--max-time", "1s"});
  const json answer = decision(out);
  EXPECT_FALSE(answer.contains("decision")) << answer;
  EXPECT_THAT(answer["systemMessage"].get<std::string>(), HasSubstr("time budget"));
}

// Exit 1 is every CLI's non-blocking error; stdout stays empty so nothing is read as a block.
void expect_non_blocking_error(const RalphOutput& out, const std::string& says) {
  EXPECT_EQ(out.exit_code, 1) << out.err;
  EXPECT_EQ(out.out, "");
  EXPECT_THAT(out.err, HasSubstr(says));
  EXPECT_THAT(out.err, HasSubstr("ralph hook: error:"));
}

TEST_F(HookEndToEnd, AMalformedConfigurationIsANonBlockingErrorNamingTheFile) {
  workspace.write(".ralph/config.toml", "[verify\ncommands = 1\n");
  expect_non_blocking_error(hook(claude_stop("s1")), "config.toml");
}

TEST_F(HookEndToEnd, AVerifyCommandThatCannotRunDoesNotTrapTheAgent) {
  expect_non_blocking_error(hook(claude_stop("s1"), {"--verify-cmd", "no-such-command-xyz"}),
                            "could not verify");
}

TEST_F(HookEndToEnd, AnUnreadablePayloadIsANonBlockingError) {
  const RalphOutput out = run_ralph_with_input({"hook"}, elsewhere.path(), "not json");
  expect_non_blocking_error(out, "hook payload");
}

TEST_F(HookEndToEnd, NoVerifierConfiguredIsANonBlockingError) {
  workspace.write(".ralph/config.toml", "");
  expect_non_blocking_error(hook(claude_stop("s1")), "no verifier");
}

TEST_F(HookEndToEnd, AMistypedHookCommandLineExitsOneNotTwo) {
  // Claude Code would feed a usage error's stderr to the agent as a block on exit 2.
  const RalphOutput out = hook(claude_stop("s1"), {"--verify-cmnd", "x"});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  EXPECT_EQ(out.out, "");
}

TEST_F(HookEndToEnd, HookSessionsAreNotResumedAsRuns) {
  hook(claude_stop("s1"));
  const RalphOutput out = run_ralph({"sessions", "resume", "claude-s1", "--yes"}, workspace.path());
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_THAT(out.err, HasSubstr("Stop-hook session of claude"));
}

// --- install / uninstall ---------------------------------------------------------------------

const char* k_claude_settings = R"({
  "model": "sonnet",
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify.sh", "timeout": 5}]}]
  },
  "alpha": {"z": 1, "a": 2}
})";

std::string our_command(const std::string& agent) {
  return std::filesystem::canonical(RALPH_BINARY).string() + " hook --agent " + agent;
}

TEST_F(HookEndToEnd, InstallAddsTheStopHookKeepingEverythingElseAndIsIdempotent) {
  workspace.write(".claude/settings.json", k_claude_settings);
  const RalphOutput out = run_ralph({"hook", "install", "claude"}, workspace.path());
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::string installed = workspace.read(".claude/settings.json");
  const ordered after = ordered::parse(installed);
  ordered expected = ordered::parse(k_claude_settings);
  expected["hooks"]["Stop"].push_back(
      {{"hooks", {{{"type", "command"}, {"command", our_command("claude")}, {"timeout", 600}}}}});
  EXPECT_EQ(after.dump(), expected.dump()); // key order included

  ASSERT_EQ(run_ralph({"hook", "install", "claude", "--project"}, workspace.path()).exit_code, 0);
  EXPECT_EQ(workspace.read(".claude/settings.json"), installed);

  const RalphOutput removed = run_ralph({"hook", "uninstall", "claude"}, workspace.path());
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_EQ(ordered::parse(workspace.read(".claude/settings.json")).dump(),
            ordered::parse(k_claude_settings).dump());
}

TEST_F(HookEndToEnd, UninstallOfAFileHoldingOnlyRalphsHookLeavesNothingBehind) {
  ASSERT_EQ(run_ralph({"hook", "install", "codex"}, workspace.path()).exit_code, 0);
  const ordered codex = ordered::parse(workspace.read(".codex/hooks.json"));
  EXPECT_EQ(codex["hooks"]["Stop"][0]["hooks"][0]["command"], our_command("codex"));
  ASSERT_EQ(run_ralph({"hook", "uninstall", "codex"}, workspace.path()).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(workspace.path() / ".codex"));

  // A folder with more in it keeps the rest.
  workspace.write(".codex/config.toml", "model = \"o3\"\n");
  ASSERT_EQ(run_ralph({"hook", "install", "codex"}, workspace.path()).exit_code, 0);
  ASSERT_EQ(run_ralph({"hook", "uninstall", "codex"}, workspace.path()).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(workspace.path() / ".codex" / "hooks.json"));
  EXPECT_EQ(workspace.read(".codex/config.toml"), "model = \"o3\"\n");
}

TEST_F(HookEndToEnd, GeminiGetsAnAfterAgentHookWithItsTimeoutInMilliseconds) {
  TempDir home;
  const RalphOutput out =
      run_ralph({"hook", "install", "gemini", "--user"}, workspace.path(), {{"HOME", home.path()}});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const ordered settings = ordered::parse(home.read(".gemini/settings.json"));
  const ordered& handler = settings["hooks"]["AfterAgent"][0]["hooks"][0];
  EXPECT_EQ(handler["command"], our_command("gemini"));
  EXPECT_EQ(handler["timeout"], 600000);
  EXPECT_FALSE(std::filesystem::exists(workspace.path() / ".gemini"));
}

TEST_F(HookEndToEnd, AMalformedSettingsFileIsAnErrorNamingItAndIsLeftUntouched) {
  const std::string broken = "{\"hooks\": {\"Stop\": [ }\n";
  workspace.write(".claude/settings.json", broken);
  for (const char* verb : {"install", "uninstall"}) {
    const RalphOutput out = run_ralph({"hook", verb, "claude"}, workspace.path());
    EXPECT_EQ(out.exit_code, 2) << verb;
    EXPECT_THAT(out.err, HasSubstr(".claude/settings.json")) << verb;
    EXPECT_EQ(workspace.read(".claude/settings.json"), broken) << verb;
  }
}

} // namespace
} // namespace ralph::testing
