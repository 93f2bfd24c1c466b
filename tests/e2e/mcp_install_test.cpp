// `ralph mcp install` read back by the real agent CLIs (tests/agent_clis): Claude Code connects
// to the server it names, Codex lists it.

#include "agent_cli_env.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace ralph::testing {
namespace {

namespace fs = std::filesystem;

// The CLI `name` in agent_clis_dir(), or a skip (a failure when RALPH_REQUIRE_AGENT_CLIS=1).
#define REQUIRE_CLI(var, name)                                                                     \
  const fs::path var = agent_clis_dir() / (name);                                                  \
  if (!fs::exists(var)) {                                                                          \
    if (agent_clis_required()) {                                                                   \
      FAIL() << (name) << " is not in " << agent_clis_dir();                                       \
    }                                                                                              \
    GTEST_SKIP() << (name) << " is not in " << agent_clis_dir();                                   \
  }

TEST(McpInstallCli, ClaudeCodeConnectsToTheServerItInstalled) {
  REQUIRE_CLI(claude, "claude");
  const TempDir home;
  const TempDir project;
  const std::map<std::string, std::string> env = {{"HOME", home.path().string()}};
  const RalphOutput installed =
      run_ralph({"mcp", "install", "claude", "--user"}, project.path(), env);
  ASSERT_EQ(installed.exit_code, 0) << installed.err;
  RalphProcess get({"mcp", "get", "ralph"}, project.path(), env, Streams::files, nullptr,
                   claude.string());
  const RalphOutput shown = get.wait();
  EXPECT_EQ(shown.exit_code, 0) << shown.out << shown.err;
  EXPECT_NE(shown.out.find("Connected"), std::string::npos) << shown.out << shown.err;
  EXPECT_NE(shown.out.find(std::string("Command: ") + RALPH_BINARY), std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("Args: mcp serve"), std::string::npos) << shown.out;

  const RalphOutput removed =
      run_ralph({"mcp", "uninstall", "claude", "--user"}, project.path(), env);
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  RalphProcess gone({"mcp", "get", "ralph"}, project.path(), env, Streams::files, nullptr,
                    claude.string());
  EXPECT_NE(gone.wait().exit_code, 0);
}

TEST(McpInstallCli, CodexListsTheServerItInstalled) {
  REQUIRE_CLI(codex, "codex");
  const TempDir home;
  const TempDir project;
  const std::map<std::string, std::string> env = {{"HOME", home.path().string()},
                                                  {"CODEX_HOME", (home.path() / "codex").string()}};
  const RalphOutput installed =
      run_ralph({"mcp", "install", "codex", "--user"}, project.path(), env);
  ASSERT_EQ(installed.exit_code, 0) << installed.err;
  EXPECT_TRUE(fs::exists(home.path() / "codex" / "config.toml"));
  RalphProcess get({"mcp", "get", "ralph"}, project.path(), env, Streams::files, nullptr,
                   codex.string());
  const RalphOutput shown = get.wait();
  EXPECT_EQ(shown.exit_code, 0) << shown.out << shown.err;
  EXPECT_NE(shown.out.find(std::string("command: ") + RALPH_BINARY), std::string::npos)
      << shown.out << shown.err;
  EXPECT_NE(shown.out.find("args: mcp serve"), std::string::npos) << shown.out;
}

} // namespace
} // namespace ralph::testing
