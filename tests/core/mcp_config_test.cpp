#include "ralph/core/config.h"
#include "ralph/core/mcp_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace ralph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

Error toml_error(const std::string& text) {
  Config config;
  const auto applied = apply_config_toml(config, text, "cfg.toml");
  EXPECT_FALSE(applied) << text;
  return applied ? Error{} : applied.error();
}

TEST(McpConfig, ReadsServersWithCodexKeyNamesInTheOrderDeclared) {
  Config config;
  const auto applied = apply_config_toml(config, R"(
[mcp.servers.fs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
env = { LOG_LEVEL = "debug" }
env_vars = ["GITHUB_TOKEN"]
required = true
startup_timeout_sec = 20
tool_timeout_sec = 90.5
disabled_tools = ["move_file"]

[mcp.servers.docs]
url = "https://mcp.example.com/mcp"
bearer_token_env_var = "DOCS_TOKEN"
http_headers = { X-Team = "qa" }
shareable = true
enabled_tools = ["search"]
)",
                                         "cfg.toml");
  ASSERT_TRUE(applied) << applied.error().message;
  ASSERT_EQ(config.mcp.servers.size(), 2U);
  const McpServerSettings& fs = config.mcp.servers[0];
  EXPECT_EQ(fs.name, "fs");
  EXPECT_EQ(fs.command, "npx");
  EXPECT_THAT(fs.args, ElementsAre("-y", "@modelcontextprotocol/server-filesystem", "."));
  EXPECT_THAT(fs.env, ElementsAre(Pair("LOG_LEVEL", "debug")));
  EXPECT_THAT(fs.env_vars, ElementsAre("GITHUB_TOKEN"));
  EXPECT_TRUE(fs.required);
  EXPECT_EQ(fs.startup_timeout, std::chrono::seconds(20));
  EXPECT_EQ(fs.tool_timeout, std::chrono::milliseconds(90500));
  EXPECT_THAT(fs.disabled_tools, ElementsAre("move_file"));
  EXPECT_EQ(fs.origin, "cfg.toml:2");
  const McpServerSettings& docs = config.mcp.servers[1];
  EXPECT_EQ(docs.url, "https://mcp.example.com/mcp");
  EXPECT_EQ(docs.bearer_token_env_var, "DOCS_TOKEN");
  EXPECT_THAT(docs.headers, ElementsAre(Pair("X-Team", "qa")));
  EXPECT_TRUE(docs.shareable);
  EXPECT_THAT(docs.enabled_tools, ElementsAre("search"));
}

TEST(McpConfig, MistakesNameTheServerTheFieldAndTheLine) {
  EXPECT_THAT(toml_error("[mcp.servers.fs]\ncomand = \"npx\"\n").message,
              HasSubstr("cfg.toml:1: mcp.servers.fs.comand: unknown field"));
  EXPECT_THAT(toml_error("\n[mcp.servers.fs]\nargs = [\"x\"]\n").message,
              HasSubstr("cfg.toml:2: mcp.servers.fs: give either command"));
  EXPECT_THAT(toml_error("[mcp.servers.both]\ncommand = \"x\"\nurl = \"http://h/mcp\"\n").message,
              HasSubstr("give either command"));
  EXPECT_THAT(toml_error("[mcp.servers.web]\nurl = \"ftp://h\"\n").message,
              HasSubstr("mcp.servers.web.url: expected an http:// or https:// URL"));
  EXPECT_THAT(
      toml_error("[mcp.servers.web]\nurl = \"http://h\"\nbearer_token_env_var = \"sk-123\"\n")
          .message,
      HasSubstr("the name of an environment variable"));
  EXPECT_THAT(toml_error("[mcp.servers.\"a b\"]\ncommand = \"x\"\n").message,
              HasSubstr("letters, digits, _ and -"));
  EXPECT_THAT(toml_error("[mcp.servers.fs]\ncommand = \"x\"\ntool_timeout_sec = 0\n").message,
              HasSubstr("tool_timeout_sec: expected seconds from 1"));
  EXPECT_THAT(toml_error("[mcp.servers.web]\nurl = \"http://h\"\nargs = [\"a\"]\n").message,
              HasSubstr("are for a command server only"));
  EXPECT_EQ(toml_error("[mcp]\nservers = 3\n").kind, ErrorKind::config);
}

TEST(McpConfig, ReadsClaudeCodesMcpJsonAndKeepsVariablesForLater) {
  McpSettings settings;
  settings.servers.push_back(McpServerSettings{.name = "mine", .command = "own"});
  const auto applied = apply_mcp_json(settings, R"({"mcpServers": {
    "mine": {"command": "from-the-json"},
    "github": {"command": "npx", "args": ["-y", "server-github"],
               "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
    "remote": {"type": "http", "url": "${API_BASE:-https://api.example.com}/mcp",
               "headers": {"Authorization": "Bearer ${API_KEY}"}}
  }})",
                                      "/w/.mcp.json");
  ASSERT_TRUE(applied) << applied.error().message;
  ASSERT_EQ(settings.servers.size(), 3U);
  EXPECT_EQ(settings.servers[0].command, "own") << "ralph's own declaration wins";
  EXPECT_EQ(settings.servers[1].name, "github");
  EXPECT_THAT(settings.servers[1].env, ElementsAre(Pair("GITHUB_TOKEN", "${GITHUB_TOKEN}")));
  EXPECT_EQ(settings.servers[1].origin, "/w/.mcp.json");
  EXPECT_EQ(settings.servers[2].url, "${API_BASE:-https://api.example.com}/mcp");
  EXPECT_THAT(settings.servers[2].headers, ElementsAre(Pair("Authorization", "Bearer ${API_KEY}")));
}

TEST(McpConfig, AMcpJsonMistakeNamesTheFileAndTheServer) {
  McpSettings settings;
  auto bad = apply_mcp_json(
      settings, R"({"mcpServers": {"old": {"type": "sse", "url": "http://h"}}})", "/w/.mcp.json");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("/w/.mcp.json: mcpServers.old: type 'sse'"));
  bad = apply_mcp_json(settings, R"({"servers": {}})", "/w/.mcp.json");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("expected an object with \"mcpServers\""));
  bad = apply_mcp_json(settings, "{not json", "/w/.mcp.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::parse);
  EXPECT_TRUE(settings.servers.empty());
}

TEST(McpConfig, ExpandsVariablesAsClaudeCodeDoes) {
  const std::map<std::string, std::string> vars = {{"HOME", "/home/u"}, {"EMPTY", ""}};
  const auto lookup = [&](const char* name) -> const char* {
    const auto found = vars.find(name);
    return found == vars.end() ? nullptr : found->second.c_str();
  };
  EXPECT_EQ(expand_variables("${HOME}/x", lookup), "/home/u/x");
  EXPECT_EQ(expand_variables("${UNSET}/x", lookup), "${UNSET}/x");
  EXPECT_EQ(expand_variables("${UNSET:-/tmp}/x", lookup), "/tmp/x");
  EXPECT_EQ(expand_variables("${EMPTY:-fallback}", lookup), "fallback");
  EXPECT_EQ(expand_variables("${HOME:-no}", lookup), "/home/u");
  EXPECT_EQ(expand_variables("a ${HOME", lookup), "a ${HOME");
  EXPECT_EQ(expand_variables("$HOME", lookup), "$HOME");
}

TEST(McpConfig, TheRecordKeepsVariableReferencesButNotValuesWrittenOut) {
  Config config;
  ASSERT_TRUE(apply_config_toml(config, R"(
[mcp.servers.gh]
command = "server-github"
env = { GITHUB_TOKEN = "ghp_written_in_the_file", OTHER = "${OTHER_TOKEN}" }
)",
                                "cfg.toml"));
  const std::string json = config_to_json(config);
  EXPECT_THAT(json, Not(HasSubstr("ghp_written_in_the_file")));
  Config resumed;
  const auto applied = apply_config_json(resumed, json, "session s1");
  ASSERT_TRUE(applied) << applied.error().message;
  ASSERT_EQ(resumed.mcp.servers.size(), 1U);
  EXPECT_EQ(resumed.mcp.servers[0].command, "server-github");
  EXPECT_EQ(resumed.mcp.servers[0].env.at("OTHER"), "${OTHER_TOKEN}");
  EXPECT_EQ(resumed.mcp.servers[0].env.at("GITHUB_TOKEN"), k_unrecorded_value);
}

} // namespace
} // namespace ralph
