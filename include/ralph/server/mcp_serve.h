#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/server/serve.h"
#include "ralph/session/runtime.h"

#include <filesystem>
#include <vector>

namespace ralph::server {

// `ralph mcp serve`: what it serves.
struct McpServeRequest {
  std::filesystem::path workspace; // canonical: what `verify` checks and where goals work
  Config config;                   // what `verify` and the sessions it starts begin from
  std::vector<Setting> flags;      // the command's, over a resumed session's recorded config
};

// Serves ralph's MCP tools as newline-delimited JSON-RPC on `in` and `out` (file descriptors)
// until `in` ends or `stop` is cancelled; nothing but MCP messages is written to `out`. Then
// the calls still running are cancelled, the sessions it started end interrupted (resumable),
// and it returns. Errors are what kept it from starting (the store).
// Without a store (store.enabled off) only `verify` is offered. `observer` hears warnings.
Result<void> mcp_serve(session::Runtime& runtime, const McpServeRequest& request, int in, int out,
                       ServeObserver& observer, const CancelToken& stop);

} // namespace ralph::server
