#pragma once

// `ralph mcp list|check|serve|install|uninstall`.

#include "cli/command_line.h"

#include "ralph/core/error.h"

namespace ralph::cli {

// `list` and `check`: the servers the built-in agent would get, each started and asked for its
// tools; `check` exits 1 when one fails.
Result<int> mcp_list_command(const RunArgs& run, const McpArgs& mcp, bool check);
// `serve`: ralph's tools over MCP on stdin/stdout until the client closes stdin.
Result<int> mcp_serve_command(const RunArgs& run);
// `install` / `uninstall`: ralph's server in an agent CLI's MCP settings.
Result<int> mcp_install_command(const RunArgs& run, const McpArgs& mcp, bool install);

} // namespace ralph::cli
