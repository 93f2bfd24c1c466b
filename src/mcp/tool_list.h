#pragma once

#include "param_headers.h"
#include "rpc_channel.h"

#include "ralph/core/error.h"
#include "ralph/core/settings.h"
#include "ralph/mcp/client.h"

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ralph::mcp {

struct ToolList {
  std::vector<RemoteTool> tools; // in the server's order, after enabled_tools/disabled_tools
  std::map<std::string, std::vector<ParamHeader>> param_headers; // by tool, when it has some
};

// Every page of `tools/list` (following nextCursor), each request given the era's `_meta` by
// `with_meta`, each within `timeout`.
Result<ToolList> list_tools(RpcChannel& channel, const std::function<Json(Json)>& with_meta,
                            const McpServerSettings& settings, std::chrono::milliseconds timeout);

// A reply's failure or error in words.
std::string describe(const RpcReply& reply);

} // namespace ralph::mcp
