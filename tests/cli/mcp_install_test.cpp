#include "cli/mcp_install.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace ralph::cli {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `result` is `expected`, or says what it was.
::testing::AssertionResult gave(const Result<bool>& result, bool expected) {
  if (!result) {
    return ::testing::AssertionFailure() << "error: " << result.error().message;
  }
  if (*result != expected) {
    return ::testing::AssertionFailure() << "gave " << *result;
  }
  return ::testing::AssertionSuccess();
}

const fs::path k_ralph = "/opt/ralph/bin/ralph";

constexpr const char* k_codex = R"(# my settings
model = "o3"  # the model

[mcp_servers.docs]
command = "docs-server"  # keep me

# profiles below
[profiles.fast]
model = "o4-mini"
)";

TEST(McpInstall, SettingsFilesAreWhereEachAgentReadsThem) {
  EXPECT_EQ(mcp_settings_file(HookAgent::claude, HookScope::project, "/p", "/h"), "/p/.mcp.json");
  EXPECT_EQ(mcp_settings_file(HookAgent::claude, HookScope::user, "/p", "/h"), "/h/.claude.json");
  EXPECT_EQ(mcp_settings_file(HookAgent::codex, HookScope::project, "/p", "/h", "/c"),
            "/p/.codex/config.toml");
  EXPECT_EQ(mcp_settings_file(HookAgent::codex, HookScope::user, "/p", "/h"),
            "/h/.codex/config.toml");
  EXPECT_EQ(mcp_settings_file(HookAgent::codex, HookScope::user, "/p", "/h", "/c"),
            "/c/config.toml");
  EXPECT_EQ(mcp_settings_file(HookAgent::gemini, HookScope::user, "/p", "/h"),
            "/h/.gemini/settings.json");
}

TEST(McpInstall, CodexKeepsCommentsAndTablesAndUninstallRestoresTheFile) {
  const TempDir dir;
  const fs::path file = dir.write(".codex/config.toml", k_codex);
  ASSERT_TRUE(gave(install_mcp_server(file, HookAgent::codex, k_ralph), true));
  const std::string installed = read(file);
  EXPECT_EQ(installed.rfind(k_codex, 0), 0U) << installed; // all of it, untouched, first
  EXPECT_NE(installed.find("[mcp_servers.ralph]\ncommand = \"/opt/ralph/bin/ralph\"\n"
                           "args = [\"mcp\", \"serve\"]\n"),
            std::string::npos)
      << installed;
  EXPECT_TRUE(gave(install_mcp_server(file, HookAgent::codex, k_ralph), false));
  EXPECT_EQ(read(file), installed);
  ASSERT_TRUE(gave(uninstall_mcp_server(file, HookAgent::codex), true));
  EXPECT_EQ(read(file), k_codex);
  EXPECT_TRUE(gave(uninstall_mcp_server(file, HookAgent::codex), false));
}

TEST(McpInstall, CodexUninstallTakesTheTableAndItsSubtablesFromTheMiddle) {
  const TempDir dir;
  const fs::path file = dir.write("config.toml", "model = \"o3\"\n\n"
                                                 "[mcp_servers.ralph]\ncommand = \"ralph\"\n\n"
                                                 "[mcp_servers.ralph.env]\nX = \"1\"\n\n"
                                                 "[mcp_servers.docs]\ncommand = \"d\"\n");
  ASSERT_TRUE(gave(uninstall_mcp_server(file, HookAgent::codex), true));
  EXPECT_EQ(read(file), "model = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"d\"\n");
}

TEST(McpInstall, CodexFilesItCannotEditSafelyAreLeftUntouched) {
  const TempDir dir;
  const fs::path broken = dir.write("broken.toml", "model = \n[x\n");
  const auto refused = install_mcp_server(broken, HookAgent::codex, k_ralph);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::config);
  EXPECT_NE(refused.error().message.find("broken.toml:1:"), std::string::npos)
      << refused.error().message;
  EXPECT_EQ(read(broken), "model = \n[x\n");
  // ralph's server written as an inline table: no table to take out by lines.
  const std::string inline_text = "mcp_servers = { ralph = { command = \"r\" } }\n";
  const fs::path inline_file = dir.write("inline.toml", inline_text);
  EXPECT_FALSE(uninstall_mcp_server(inline_file, HookAgent::codex));
  EXPECT_EQ(read(inline_file), inline_text);
  EXPECT_TRUE(gave(install_mcp_server(inline_file, HookAgent::codex, k_ralph), false));
  // Another server's inline table: a [mcp_servers.ralph] table cannot be added after it.
  const std::string other_inline = "mcp_servers = { docs = { command = \"d\" } }\n";
  const fs::path other = dir.write("other.toml", other_inline);
  EXPECT_FALSE(install_mcp_server(other, HookAgent::codex, k_ralph));
  EXPECT_EQ(read(other), other_inline);
}

TEST(McpInstall, ClaudeAndGeminiKeepEveryOtherKeyInOrder) {
  const TempDir dir;
  const std::string original =
      R"({"zeta": 1, "alpha": {"x": [1, 2]}, "mcpServers": {"docs": {"command": "d"}}})";
  for (const HookAgent agent : {HookAgent::claude, HookAgent::gemini}) {
    const fs::path file = dir.write(std::string(to_string(agent)) + ".json", original);
    ASSERT_TRUE(gave(install_mcp_server(file, agent, k_ralph), true));
    const nlohmann::ordered_json settings = nlohmann::ordered_json::parse(read(file));
    EXPECT_EQ(settings.begin().key(), "zeta");
    EXPECT_EQ(settings["alpha"]["x"], nlohmann::ordered_json::array({1, 2}));
    EXPECT_EQ(settings["mcpServers"]["docs"]["command"], "d");
    EXPECT_EQ(settings["mcpServers"]["ralph"]["command"], k_ralph.string());
    EXPECT_EQ(settings["mcpServers"]["ralph"]["args"],
              nlohmann::ordered_json::array({"mcp", "serve"}));
    EXPECT_EQ(settings["mcpServers"]["ralph"].contains("type"), agent == HookAgent::claude);
    const std::string once = read(file);
    EXPECT_TRUE(gave(install_mcp_server(file, agent, k_ralph), false));
    EXPECT_EQ(read(file), once);
    ASSERT_TRUE(gave(uninstall_mcp_server(file, agent), true));
    EXPECT_EQ(nlohmann::ordered_json::parse(read(file)), nlohmann::ordered_json::parse(original));
  }
}

TEST(McpInstall, AMissingFileIsMadeAndABrokenOneLeftAsItWas) {
  const TempDir dir;
  const fs::path made = dir.path() / "new" / ".mcp.json";
  ASSERT_TRUE(gave(install_mcp_server(made, HookAgent::claude, k_ralph), true));
  EXPECT_EQ(nlohmann::json::parse(read(made))["mcpServers"]["ralph"]["type"], "stdio");
  EXPECT_TRUE(gave(uninstall_mcp_server(dir.path() / "none.json", HookAgent::claude), false));
  for (const std::string text : {"{broken", "[1]", R"({"mcpServers": [1]})"}) {
    const fs::path file = dir.write("bad.json", text);
    const auto refused = install_mcp_server(file, HookAgent::gemini, k_ralph);
    ASSERT_FALSE(refused) << text;
    EXPECT_EQ(refused.error().kind, ErrorKind::config);
    EXPECT_NE(refused.error().message.find("left as it was"), std::string::npos);
    EXPECT_EQ(read(file), text);
  }
}

} // namespace
} // namespace ralph::cli
