// The client against the reference servers from npm (tests/mcp_packages/package.json):
// server-everything over stdio and streamable HTTP, server-filesystem over stdio. Both speak only
// the legacy era (2025-11-25), so the era probe must fall back.
#include "mcp/mcp_test_servers.h"
#include "support/temp_dir.h"

#include "ralph/mcp/client.h"
#include "ralph/mcp/mcp_tool.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace ralph::mcp {
namespace {

using testing::TempDir;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The .bin folder first in PATH, so `#!/usr/bin/env node` finds the pinned Node 22.
struct NpmEnvironment {
  std::string path;
  explicit NpmEnvironment(const std::filesystem::path& bin) {
    const char* old = std::getenv("PATH");
    path = bin.parent_path().string() + ":" + (old != nullptr ? old : "/usr/bin:/bin");
  }
  std::function<const char*(const char*)> getenv() const {
    return [this](const char* name) -> const char* {
      return std::string(name) == "PATH" ? path.c_str() : std::getenv(name);
    };
  }
};

McpServerSettings everything(const std::filesystem::path& bin) {
  McpServerSettings settings;
  settings.name = "everything";
  settings.command = bin.string();
  settings.startup_timeout = std::chrono::seconds(30);
  settings.tool_timeout = std::chrono::seconds(60);
  return settings;
}

std::vector<std::string> names_of(const std::vector<RemoteTool>& tools) {
  std::vector<std::string> names;
  for (const auto& tool : tools) {
    names.push_back(tool.name);
  }
  return names;
}

TEST(EverythingServer, StdioIsLegacyAndCallsTools) {
  RALPH_REQUIRE_MCP_BIN(bin, "mcp-server-everything");
  TempDir dir;
  NpmEnvironment env(*bin);
  ClientOptions options;
  options.workspace = dir.path();
  options.getenv = env.getenv();
  auto client = Client::connect(everything(*bin), options);
  ASSERT_TRUE(client) << client.error().message;
  const ServerStatus status = (*client)->status();
  EXPECT_EQ(status.era, Era::legacy);
  EXPECT_EQ(status.protocol_version, "2025-11-25");
  EXPECT_FALSE(status.server_name.empty());
  const auto names = names_of((*client)->tools());
  for (const char* tool : {"echo", "get-sum", "trigger-long-running-operation"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), tool), names.end()) << tool;
  }
  const CallResult echo = (*client)->call("echo", R"({"message":"hello"})", {});
  EXPECT_FALSE(echo.is_error);
  EXPECT_EQ(echo.text, "Echo: hello");
  const CallResult sum = (*client)->call("get-sum", R"({"a":2,"b":40})", {});
  EXPECT_FALSE(sum.is_error);
  EXPECT_TRUE(contains(sum.text, "42")) << sum.text;
  const CallResult unknown = (*client)->call("no-such-tool", "{}", {});
  EXPECT_TRUE(unknown.is_error);
  EXPECT_TRUE(contains(unknown.text, "no-such-tool")) << unknown.text;
}

TEST(EverythingServer, StdioProgressThenACancelledCallAndTheConnectionStillWorks) {
  RALPH_REQUIRE_MCP_BIN(bin, "mcp-server-everything");
  TempDir dir;
  NpmEnvironment env(*bin);
  ClientOptions options;
  options.workspace = dir.path();
  options.getenv = env.getenv();
  auto client = Client::connect(everything(*bin), options);
  ASSERT_TRUE(client) << client.error().message;
  std::vector<CallProgress> seen;
  CallOptions with_progress;
  with_progress.on_progress = [&](const CallProgress& p) { seen.push_back(p); };
  const CallResult done = (*client)->call("trigger-long-running-operation",
                                          R"({"duration":0.3,"steps":3})", with_progress);
  EXPECT_FALSE(done.is_error) << done.text;
  EXPECT_TRUE(contains(done.text, "completed")) << done.text;
  ASSERT_EQ(seen.size(), 3U);
  EXPECT_EQ(seen.back().progress, 3);
  EXPECT_EQ(seen.back().total, 3);

  int updates = 0;
  CallOptions cancelling;
  cancelling.on_progress = [&](const CallProgress&) {
    ++updates;
    cancelling.cancel.cancel();
  };
  const CallResult cancelled = (*client)->call("trigger-long-running-operation",
                                               R"({"duration":30,"steps":100})", cancelling);
  EXPECT_TRUE(cancelled.is_error);
  EXPECT_TRUE(cancelled.cancelled);
  EXPECT_EQ(updates, 1);
  EXPECT_LT(cancelled.duration, std::chrono::seconds(20));
  EXPECT_EQ((*client)->call("echo", R"({"message":"still here"})", {}).text, "Echo: still here");
}

TEST(EverythingServer, StdioKilledMidCallIsRestartedOnceThenFailsClearly) {
  RALPH_REQUIRE_MCP_BIN(bin, "mcp-server-everything");
  TempDir dir;
  NpmEnvironment env(*bin);
  ClientOptions options;
  options.workspace = dir.path();
  options.getenv = env.getenv();
  auto connected = Client::connect(everything(*bin), options);
  ASSERT_TRUE(connected) << connected.error().message;
  Client& client = **connected;
  const auto kill_mid_call = [&] {
    const int pid = client.status().pid;
    EXPECT_GT(pid, 0);
    CallOptions killing;
    killing.on_progress = [&](const CallProgress&) { ::kill(pid, SIGKILL); };
    return client.call("trigger-long-running-operation", R"({"duration":30,"steps":100})", killing);
  };
  const CallResult first = kill_mid_call();
  EXPECT_TRUE(first.is_error);
  EXPECT_TRUE(contains(first.text, "MCP server `everything` exited during the call")) << first.text;
  EXPECT_EQ(client.call("echo", R"({"message":"back"})", {}).text, "Echo: back");
  EXPECT_EQ(client.status().restarts, 1);
  EXPECT_EQ(client.status().era, Era::legacy);
  EXPECT_TRUE(kill_mid_call().is_error);
  const CallResult after = client.call("echo", R"({"message":"x"})", {});
  EXPECT_TRUE(after.is_error);
  EXPECT_TRUE(contains(after.text, "MCP server `everything` exited again after its one restart"))
      << after.text;
  EXPECT_EQ(client.status().state, ServerState::failed);
}

TEST(EverythingServer, McpToolOffersTheServersToolAndCapsItsOutput) {
  RALPH_REQUIRE_MCP_BIN(bin, "mcp-server-everything");
  TempDir dir;
  NpmEnvironment env(*bin);
  ClientOptions options;
  options.workspace = dir.path();
  options.getenv = env.getenv();
  auto connected = Client::connect(everything(*bin), options);
  ASSERT_TRUE(connected) << connected.error().message;
  std::shared_ptr<Client> client = *std::move(connected);
  const auto tools = client->tools();
  const auto echo = std::find_if(tools.begin(), tools.end(),
                                 [](const RemoteTool& t) { return t.name == "echo"; });
  ASSERT_NE(echo, tools.end());
  auto tool = make_mcp_tool(client, "everything", *echo, 64);
  EXPECT_EQ(tool->spec().name, "mcp__everything__echo");
  EXPECT_TRUE(contains(tool->spec().parameters, "\"message\"")) << tool->spec().parameters;
  EXPECT_FALSE(tool->spec().description.empty());
  tools::ToolContext context;
  context.workspace = dir.path();
  const std::string long_message(500, 'm');
  const auto result = tool->run(R"({"message":")" + long_message + "\"}", context);
  EXPECT_FALSE(result.is_error);
  EXPECT_TRUE(result.truncated);
  EXPECT_TRUE(contains(result.content, "bytes omitted")) << result.content;
  EXPECT_LT(result.content.size(), 200U);
  EXPECT_FALSE(result.read_only);

  const auto slow = std::find_if(tools.begin(), tools.end(), [](const RemoteTool& t) {
    return t.name == "trigger-long-running-operation";
  });
  ASSERT_NE(slow, tools.end());
  auto slow_tool = make_mcp_tool(client, "everything", *slow, 10'000);
  std::vector<tools::ToolProgressUpdate> updates;
  context.on_progress = [&](const tools::ToolProgressUpdate& u) {
    updates.push_back(u);
    if (updates.size() == 2) {
      context.cancel.cancel();
    }
  };
  const auto cancelled = slow_tool->run(R"({"duration":30,"steps":100})", context);
  EXPECT_TRUE(cancelled.is_error);
  EXPECT_EQ(updates.size(), 2U);
  EXPECT_EQ(updates[1].progress, 2);
  EXPECT_EQ(updates[1].total, 100);
}

TEST(FilesystemServer, WriteFileChangesTheFileOnDisk) {
  RALPH_REQUIRE_MCP_BIN(bin, "mcp-server-filesystem");
  TempDir dir;
  NpmEnvironment env(*bin);
  std::vector<std::string> stderr_lines;
  ClientOptions options;
  options.workspace = dir.path();
  options.getenv = env.getenv();
  options.on_stderr = [&](std::string_view line) { stderr_lines.emplace_back(line); };
  McpServerSettings settings;
  settings.name = "fs";
  settings.command = bin->string();
  settings.args = {std::filesystem::canonical(dir.path()).string()};
  settings.startup_timeout = std::chrono::seconds(30);
  auto client = Client::connect(settings, options);
  ASSERT_TRUE(client) << client.error().message;
  EXPECT_EQ((*client)->status().era, Era::legacy);
  const auto file = std::filesystem::canonical(dir.path()) / "made.txt";
  const std::string arguments = R"({"path":")" + file.string() + R"(","content":"written by MCP"})";
  const CallResult result = (*client)->call("write_file", arguments, {});
  EXPECT_FALSE(result.is_error) << result.text;
  EXPECT_EQ(dir.read("made.txt"), "written by MCP");
  const CallResult outside =
      (*client)->call("write_file", R"({"path":"/etc/ralph-mcp-test","content":"x"})", {});
  EXPECT_TRUE(outside.is_error) << outside.text;
}

} // namespace
} // namespace ralph::mcp
