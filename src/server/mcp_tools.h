#pragma once

// ralph's tools for its MCP server (docs/reference/mcp-tools.md).

#include "ralph/core/config.h"
#include "ralph/mcp/server_tool.h"
#include "ralph/session/runtime.h"

#include <filesystem>
#include <memory>
#include <vector>

namespace ralph::server {

struct ServerParts;

// What the tools work on: the workspace and the configuration the server was started with.
// `parts` (the sessions a server hosts, its store): null, and only `verify` is made.
struct McpToolsContext {
  session::Runtime& runtime;
  Config config;
  std::filesystem::path workspace;
  ServerParts* parts = nullptr;
};

// What the server tells a client's model about itself (initialize, server/discover).
inline constexpr const char* k_mcp_instructions =
    "ralph checks work: call verify after changing the workspace to run its configured "
    "verifiers (or verify_cmd) and act on the failing verdicts; run_goal hands a goal to ralph's "
    "own loop.";

// `verify`: the workspace's verifiers (or the call's commands) on the workspace as it is now.
std::unique_ptr<mcp::ServerTool> make_verify_tool(const McpToolsContext& context);

// Every tool: `verify`, and with `parts` run_goal, get_session, list_sessions, stop_session.
std::vector<std::unique_ptr<mcp::ServerTool>> make_mcp_tools(const McpToolsContext& context);

} // namespace ralph::server
