// ralph as the Stop hook of a real Claude Code session (`claude -p`, pinned in tests/agent_clis)
// whose model is the fake provider server: the hook's block reaches the model as its next
// prompt, and the session ends when the check passes or when ralph's budget lets it through.
#include "agent_cli_env.h"
#include "e2e_support.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

class ClaudeHook : public AgentCliTest {
protected:
  ClaudeHook() : AgentCliTest(AgentCli::claude) {
    workspace.write("test.sh", k_test_script);
    workspace.write("add.sh", k_broken_add);
    workspace.write(".ralph/config.toml", "[verify]\ncommands = [\"sh test.sh\"]\n");
  }

  // `ralph hook install claude` in the workspace, as a person would run it.
  void install_hook() const {
    const RalphOutput out = run_ralph({"hook", "install", "claude"}, workspace.path());
    ASSERT_EQ(out.exit_code, 0) << out.err;
  }

  // `claude -p PROMPT` with its stream-json output, every permission granted.
  std::vector<std::string> claude_argv(const std::string& prompt) const {
    return {binary().string(),
            "-p",
            prompt,
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "bypassPermissions"};
  }

  // The `result` line of a run (a test failure when there is none).
  static json result_of(const CliRun& run) {
    for (const json& event : run.events) {
      if (event.value("type", "") == "result") {
        return event;
      }
    }
    ADD_FAILURE() << "no result line\nstdout:\n"
                  << run.process.output << "\nstderr:\n"
                  << run.process.err_output;
    return json::object();
  }

  // The session id Claude Code gave this run (from its init line).
  static std::string session_of(const CliRun& run) {
    return run.events.empty() ? std::string() : run.events.front().value("session_id", "");
  }
};

TEST_F(ClaudeHook, TheBlockReachesTheModelWhichFixesTheFileAndTheSessionStopsVerified) {
  install_hook();
  server.push(text_turn("add.sh is done."));
  // After the block: a real Bash tool call that fixes add.sh, then the final answer.
  server.push(tool_turn("Bash", {{"command", "printf 'add() { echo $(($1 + $2)); }\\n' > add.sh"},
                                 {"description", "Fix add"}}));
  server.push(text_turn("Fixed: add.sh adds now."));

  const CliRun run = run_cli(workspace.path(), home.env_list(), claude_argv("make add.sh add"), "");
  ASSERT_EQ(run.process.exit_code, 0) << describe(run);
  const json result = result_of(run);
  EXPECT_EQ(result["is_error"], false) << result;
  EXPECT_EQ(result["result"], "Fixed: add.sh adds now.");

  const auto turns = agent_turns(AgentCli::claude, server);
  ASSERT_EQ(turns.size(), 3u);
  EXPECT_THAT(turns[0].body, Not(HasSubstr("FAIL: test_add")));
  // The hook's reason is the model's next instruction.
  EXPECT_THAT(turns[1].body, HasSubstr("FAIL: test_add: expected 5, got -1"));
  EXPECT_THAT(turns[1].body, HasSubstr("attempt 1 of 3"));
  EXPECT_EQ(workspace.read("add.sh"), k_fixed_add);

  const json session = show_session("claude-" + session_of(run), workspace.path());
  EXPECT_EQ(session["status"], "completed") << session;
  EXPECT_EQ(session["verified"], true);
  EXPECT_EQ(session["goal"], "make add.sh add"); // from Claude Code's transcript
  ASSERT_EQ(session["attempts"].size(), 2u);
  EXPECT_EQ(session["attempts"][0]["answer"], "add.sh is done.");
  EXPECT_EQ(session["attempts"][1]["answer"], "Fixed: add.sh adds now.");
}

TEST_F(ClaudeHook, ACheckThatNeverPassesIsLetThroughWhenRalphsBudgetRunsOutBeforeClaudesCap) {
  install_hook();
  for (int i = 1; i <= 8; ++i) {
    server.push(text_turn("Done, attempt " + std::to_string(i) + "."));
  }

  const CliRun run = run_cli(workspace.path(), home.env_list(), claude_argv("make add.sh add"), "");
  ASSERT_EQ(run.process.exit_code, 0) << describe(run);
  const json result = result_of(run);
  EXPECT_EQ(result["result"], "Done, attempt 3.") << result;

  // Default max-iterations 3: blocked twice, let through on the third stop.
  const auto turns = agent_turns(AgentCli::claude, server);
  ASSERT_EQ(turns.size(), 3u);
  EXPECT_THAT(turns[1].body, HasSubstr("attempt 1 of 3"));
  EXPECT_THAT(turns[2].body, HasSubstr("attempt 2 of 3"));
  // The person is told why the stop went through.
  bool told = false;
  for (const json& event : run.events) {
    const std::string text = event.dump();
    told = told || (text.find("verification still fails after 3 attempts") != std::string::npos &&
                    text.find("iteration budget") != std::string::npos);
  }
  EXPECT_TRUE(told) << run.process.output;

  const json session = show_session("claude-" + session_of(run), workspace.path());
  EXPECT_EQ(session["status"], "budget_exhausted") << session;
  EXPECT_EQ(session["attempts"].size(), 3u);
  EXPECT_EQ(workspace.read("add.sh"), k_broken_add);
}

} // namespace
} // namespace ralph::testing
