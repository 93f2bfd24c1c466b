// ralph's MCP server used by a real Claude Code session (`claude -p`, pinned in tests/agent_clis)
// whose model is the fake provider server: the model calls `mcp__ralph__verify`, reads the
// failing verdict, fixes the file, calls verify again and it passes.
#include "agent_cli_env.h"
#include "e2e_support.h"
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

class ClaudeMcp : public AgentCliTest {
protected:
  ClaudeMcp() : AgentCliTest(AgentCli::claude) {
    workspace.write("test.sh", k_test_script);
    workspace.write("add.sh", k_broken_add);
    workspace.write(".ralph/config.toml", "[verify]\ncommands = [\"sh test.sh\"]\n");
    // Outside the workspace: the file is Claude Code's, not part of the work.
    m_config = config_dir.write(
        "mcp.json",
        json{{"mcpServers", {{"ralph", {{"command", RALPH_BINARY}, {"args", {"mcp", "serve"}}}}}}}
            .dump());
  }

  std::vector<std::string> claude_argv(const std::string& prompt) const {
    return {binary().string(),
            "-p",
            prompt,
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "bypassPermissions",
            "--mcp-config",
            m_config.string(),
            "--strict-mcp-config"};
  }

  TempDir config_dir;

private:
  std::filesystem::path m_config;
};

TEST_F(ClaudeMcp, TheModelActsOnRalphsVerdictAndVerifiesAgain) {
  server.push(tool_turn("mcp__ralph__verify", json::object()));
  server.push(tool_turn("Bash", {{"command", "printf 'add() { echo $(($1 + $2)); }\\n' > add.sh"},
                                 {"description", "Fix add"}}));
  server.push(tool_turn("mcp__ralph__verify", json::object()));
  server.push(text_turn("add.sh adds, and ralph's verify passes."));

  // Claude Code connects to MCP servers beside its first model call; it is told to wait for
  // them, so a loaded machine does not start the session without ralph's tools.
  auto env = home.env_list();
  env.emplace_back("MCP_CONNECTION_NONBLOCKING", "false");
  env.emplace_back("CLAUDE_CODE_MCP_STARTUP_WAIT_MS", "60000");
  const CliRun run =
      run_cli(workspace.path(), env, claude_argv("make add.sh add, then check it with ralph"), "");
  ASSERT_EQ(run.process.exit_code, 0) << describe(run);
  EXPECT_EQ(workspace.read("add.sh"), k_fixed_add);

  const auto turns = agent_turns(AgentCli::claude, server);
  ASSERT_EQ(turns.size(), 4u) << describe(run);
  // ralph's tool was offered to the model under Claude Code's name for it.
  EXPECT_THAT(turns[0].body, HasSubstr("mcp__ralph__verify"));
  // The first verify's result carried the failing verdict and the test's own words (Claude
  // Code hands the model the structured content, JSON inside the tool result's text).
  EXPECT_THAT(turns[1].body, HasSubstr(R"(\"passed\":false)"));
  EXPECT_THAT(turns[1].body, HasSubstr(R"(\"result\":\"fail\")"));
  EXPECT_THAT(turns[1].body, HasSubstr("FAIL: test_add: expected 5, got -1"));
  EXPECT_THAT(turns[2].body, Not(HasSubstr(R"(\"passed\":true)")));
  // The second, after the fix, passed.
  EXPECT_THAT(turns[3].body, HasSubstr(R"(\"passed\":true)"));
}

} // namespace
} // namespace ralph::testing
