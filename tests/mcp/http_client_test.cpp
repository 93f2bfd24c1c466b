// The client over streamable HTTP against server-everything's HTTP transport (legacy era: the
// modern probe gets a 400 with a JSON-RPC error, then initialize, an Mcp-Session-Id, and SSE
// answers).
#include "mcp/mcp_test_servers.h"
#include "mcp/server_process.h"
#include "support/temp_dir.h"

#include "ralph/mcp/client.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ralph::mcp {
namespace {

using testing::free_port;
using testing::ServerProcess;
using testing::TempDir;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(EverythingServerHttp, LegacyEraCallsProgressAndCancel) {
  RALPH_REQUIRE_MCP_BIN(bin, "mcp-server-everything");
  const int port = free_port();
  const std::string path = bin->parent_path().string() + ":" + std::getenv("PATH");
  ServerProcess server({bin->string(), "streamableHttp"},
                       {"PORT=" + std::to_string(port), "PATH=" + path});
  ASSERT_TRUE(server.wait_for("listening on port", std::chrono::seconds(30))) << server.output();
  TempDir dir;
  ClientOptions options;
  options.workspace = dir.path();
  McpServerSettings settings;
  settings.name = "everything-http";
  settings.url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
  settings.startup_timeout = std::chrono::seconds(30);
  auto connected = Client::connect(settings, options);
  ASSERT_TRUE(connected) << connected.error().message;
  Client& client = **connected;
  EXPECT_EQ(client.status().transport, "http");
  EXPECT_EQ(client.status().era, Era::legacy);
  EXPECT_EQ(client.status().protocol_version, "2025-11-25");
  EXPECT_FALSE(client.tools().empty());
  EXPECT_EQ(client.call("echo", R"({"message":"over http"})", {}).text, "Echo: over http");
  EXPECT_TRUE(client.call("no-such-tool", "{}", {}).is_error);

  std::vector<CallProgress> seen;
  CallOptions with_progress;
  with_progress.on_progress = [&](const CallProgress& p) { seen.push_back(p); };
  const CallResult done =
      client.call("trigger-long-running-operation", R"({"duration":0.3,"steps":3})", with_progress);
  EXPECT_TRUE(contains(done.text, "completed")) << done.text;
  EXPECT_EQ(seen.size(), 3U);

  CallOptions cancelling;
  cancelling.on_progress = [&](const CallProgress&) { cancelling.cancel.cancel(); };
  const CallResult cancelled =
      client.call("trigger-long-running-operation", R"({"duration":30,"steps":100})", cancelling);
  EXPECT_TRUE(cancelled.cancelled);
  EXPECT_LT(cancelled.duration, std::chrono::seconds(20));
  EXPECT_EQ(client.call("echo", R"({"message":"again"})", {}).text, "Echo: again");
}

TEST(HttpClient, ARefusedConnectionFailsToConnectNamingTheServer) {
  TempDir dir;
  ClientOptions options;
  options.workspace = dir.path();
  McpServerSettings settings;
  settings.name = "nowhere";
  settings.url = "http://127.0.0.1:" + std::to_string(free_port()) + "/mcp";
  auto client = Client::connect(settings, options);
  ASSERT_FALSE(client);
  EXPECT_TRUE(contains(client.error().message, "MCP server `nowhere`")) << client.error().message;
}

TEST(HttpClient, AnUnsetBearerTokenVariableIsAClearError) {
  TempDir dir;
  ClientOptions options;
  options.workspace = dir.path();
  options.getenv = [](const char*) -> const char* { return nullptr; };
  McpServerSettings settings;
  settings.name = "guarded";
  settings.url = "http://127.0.0.1:1/mcp";
  settings.bearer_token_env_var = "RALPH_TEST_MCP_TOKEN";
  auto client = Client::connect(settings, options);
  ASSERT_FALSE(client);
  EXPECT_TRUE(contains(client.error().message, "RALPH_TEST_MCP_TOKEN")) << client.error().message;
}

} // namespace
} // namespace ralph::mcp
