// The client against a current-era (2026-07-28) server made with the official TypeScript SDK v2
// (fixtures/modern_server.mjs), which refuses the 2025 era: over stdio and over HTTP the client
// must find `modern` and call its tools.
#include "mcp/mcp_test_servers.h"
#include "mcp/server_process.h"
#include "support/temp_dir.h"

#include "ralph/mcp/client.h"

#include <gtest/gtest.h>

#include <string>

namespace ralph::mcp {
namespace {

using testing::TempDir;

std::string fixture() {
  return std::string(RALPH_SOURCE_DIR) + "/tests/mcp/fixtures/modern_server.mjs";
}

void expect_modern_and_callable(Client& client) {
  const ServerStatus status = client.status();
  EXPECT_EQ(status.era, Era::modern);
  EXPECT_EQ(status.protocol_version, "2026-07-28");
  EXPECT_EQ(status.server_name, "ralph-modern-fixture");
  EXPECT_EQ(status.server_version, "3.1.4");
  const auto tools = client.tools();
  ASSERT_EQ(tools.size(), 3U);
  EXPECT_EQ(tools[0].name, "shout");
  EXPECT_NE(tools[0].input_schema.find("\"text\""), std::string::npos);
  const CallResult shout = client.call("shout", R"({"text":"quiet"})", {});
  EXPECT_FALSE(shout.is_error) << shout.text;
  EXPECT_EQ(shout.text, "QUIET");
  EXPECT_EQ(client.call("add", R"({"a":2,"b":3})", {}).text, R"({"sum":5})");
  EXPECT_TRUE(client.call("missing", "{}", {}).is_error);
  // Over HTTP the SDK refuses this call unless `region` also comes as Mcp-Param-Region, in the
  // Base64 form when it is not plain ASCII.
  EXPECT_EQ(client.call("where", R"({"region":"eu-west"})", {}).text, "region eu-west");
  EXPECT_EQ(client.call("where", R"({"region":"z\u00fcrich"})", {}).text, "region z\xc3\xbcrich");
}

TEST(ModernServer, StdioIsFoundModernAndCalled) {
  RALPH_REQUIRE_MCP_BIN(node, "node");
  TempDir dir;
  ClientOptions options;
  options.workspace = dir.path();
  McpServerSettings settings;
  settings.name = "modern";
  settings.command = node->string();
  settings.args = {fixture()};
  settings.env = {{"RALPH_MCP_TESTS_DIR", testing::mcp_tests_dir().string()}};
  settings.startup_timeout = std::chrono::seconds(30);
  auto client = Client::connect(settings, options);
  ASSERT_TRUE(client) << client.error().message;
  expect_modern_and_callable(**client);
}

TEST(ModernServer, HttpIsFoundModernAndCalled) {
  RALPH_REQUIRE_MCP_BIN(node, "node");
  const int port = testing::free_port();
  testing::ServerProcess server({node->string(), fixture(), "http", std::to_string(port)},
                                {"RALPH_MCP_TESTS_DIR=" + testing::mcp_tests_dir().string()});
  ASSERT_TRUE(server.wait_for("listening on", std::chrono::seconds(30))) << server.output();
  TempDir dir;
  ClientOptions options;
  options.workspace = dir.path();
  McpServerSettings settings;
  settings.name = "modern-http";
  settings.url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
  settings.startup_timeout = std::chrono::seconds(30);
  auto client = Client::connect(settings, options);
  ASSERT_TRUE(client) << client.error().message << "\n" << server.output();
  expect_modern_and_callable(**client);
}

} // namespace
} // namespace ralph::mcp
