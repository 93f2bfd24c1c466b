// What one MCP tool call costs the built-in agent, through the tool the model calls: the round
// trip to a stdio server (the reference server-everything's `echo`, Node) against a `shell` tool
// call that runs `echo` (a process each time), the built-in way to the same answer.

#include "temp_workspace.h"

#include "ralph/mcp/client.h"
#include "ralph/mcp/mcp_tool.h"
#include "ralph/tools/builtin_tools.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

namespace ralph::bench {
namespace {

std::filesystem::path everything_server() {
  const char* dir = std::getenv("RALPH_MCP_TESTS_DIR");
  const std::filesystem::path modules =
      dir != nullptr && *dir != '\0'
          ? std::filesystem::path(dir)
          : std::filesystem::path(RALPH_SOURCE_DIR "/tests/mcp_packages/node_modules");
  return modules / ".bin" / "mcp-server-everything";
}

void BM_McpToolCall_StdioEcho(benchmark::State& state) {
  const TempWorkspace workspace;
  McpServerSettings settings;
  settings.name = "everything";
  settings.command = everything_server().string();
  auto client = mcp::Client::connect(settings, {.workspace = workspace.root()});
  if (!client) {
    state.SkipWithError(client.error().message.c_str());
    return;
  }
  std::shared_ptr<mcp::Client> shared = std::move(*client);
  mcp::RemoteTool echo;
  echo.name = "echo";
  const auto tool = mcp::make_mcp_tool(shared, "everything", echo, 30000);
  const tools::ToolContext context{.workspace = workspace.root()};
  for (auto _ : state) {
    tools::ToolResult result = tool->run(R"({"message":"hello"})", context);
    if (result.is_error) {
      state.SkipWithError(result.content.c_str());
      return;
    }
    benchmark::DoNotOptimize(result.content.data());
  }
}
BENCHMARK(BM_McpToolCall_StdioEcho)->Unit(benchmark::kMicrosecond);

void BM_ShellToolCall_Echo(benchmark::State& state) {
  const TempWorkspace workspace;
  tools::PosixProcessRunner runner;
  const auto tool = tools::make_shell_tool(ToolSettings{}, runner);
  const tools::ToolContext context{.workspace = workspace.root()};
  for (auto _ : state) {
    tools::ToolResult result = tool->run(R"({"command":"echo hello"})", context);
    benchmark::DoNotOptimize(result.content.data());
  }
}
BENCHMARK(BM_ShellToolCall_Echo)->Unit(benchmark::kMicrosecond);

} // namespace
} // namespace ralph::bench
