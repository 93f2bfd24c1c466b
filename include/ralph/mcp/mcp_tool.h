#pragma once

#include "ralph/mcp/client.h"
#include "ralph/tools/tool.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace ralph::mcp {

// The model's name for a server's tool: `mcp__SERVER__TOOL`, every character outside
// [A-Za-z0-9_-] as `_`, cut to the 64 characters providers accept (with a short hash of the
// full name when cut, so two long names stay apart).
std::string model_tool_name(std::string_view server, std::string_view tool);

// A tool of the built-in agent that calls `tool` on `client`: its result capped at
// `output_limit` bytes (head and tail, as the shell's), progress reported through
// ToolContext::on_progress, a cancel of ToolContext::cancel passed on to the server. Never
// read-only: the loop looks for what it changed in the workspace.
std::unique_ptr<tools::Tool> make_mcp_tool(std::shared_ptr<Client> client, std::string_view server,
                                           const RemoteTool& tool, std::size_t output_limit);

// The same, its calls waiting through `waiter` and sending HTTP through `make_transport` (the
// calling session's, for a client shared by sessions on other fibers or threads; see
// CallOptions). Either may be null or empty: the client's own.
std::unique_ptr<tools::Tool>
make_mcp_tool(std::shared_ptr<Client> client, std::string_view server, const RemoteTool& tool,
              std::size_t output_limit, Waiter* waiter,
              std::function<std::unique_ptr<http::Transport>()> make_transport);

} // namespace ralph::mcp
