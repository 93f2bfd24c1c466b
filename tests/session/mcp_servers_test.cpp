// The MCP servers of sessions: shared clients, and expanding a declaration for its start.
#include "mcp/mcp_test_servers.h"
#include "support/temp_dir.h"

#include "ralph/core/mcp_config.h"
#include "ralph/session/mcp_servers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::session {
namespace {

using ::testing::HasSubstr;

TEST(SharedMcpClients, OneClientPerDeclarationEvenWhenOnlyAnEnvValueDiffers) {
  const testing::TempDir dir;
  const mcp::ClientOptions options{.workspace = dir.path()};
  McpServerSettings first = testing::scripted_server();
  first.env = {{"WHO", "first"}};
  McpServerSettings second = first;
  second.env = {{"WHO", "second"}};
  SharedMcpClients shared;

  const auto a = shared.get(first, options);
  const auto b = shared.get(second, options);
  const auto again = shared.get(first, options);

  ASSERT_TRUE(a && b && again);
  EXPECT_EQ(a->get(), again->get());
  EXPECT_NE(a->get(), b->get());
  EXPECT_EQ((*a)->call("env", R"({"name":"WHO"})", {}).text, "first");
  EXPECT_EQ((*b)->call("env", R"({"name":"WHO"})", {}).text, "second");
}

TEST(ExpandMcpServer, VariablesComeFromTheEnvironmentAndAnUnrecordedValueIsAnError) {
  McpServerSettings server;
  server.name = "gh";
  server.command = "${BIN:-/usr/bin}/server";
  server.args = {"--root", "${ROOT}"};
  server.env = {{"TOKEN", "${GH_TOKEN}"}};
  const Environment env = Environment::of({{"ROOT", "/w"}, {"GH_TOKEN", "t-123"}});

  const auto expanded = expand_mcp_server(server, env);

  ASSERT_TRUE(expanded) << expanded.error().message;
  EXPECT_EQ(expanded->command, "/usr/bin/server");
  EXPECT_EQ(expanded->args[1], "/w");
  EXPECT_EQ(expanded->env.at("TOKEN"), "t-123");
  server.env["OTHER"] = std::string(k_unrecorded_value);
  const auto refused = expand_mcp_server(server, env);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::config);
  EXPECT_THAT(refused.error().message, HasSubstr("env.OTHER"));
}

} // namespace
} // namespace ralph::session
