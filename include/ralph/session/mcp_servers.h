#pragma once

#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/engine/io.h"
#include "ralph/mcp/client.h"
#include "ralph/session/environment.h"
#include "ralph/session/runtime.h"
#include "ralph/tools/registry.h"

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ralph::session {

// The MCP servers a session's built-in agent uses, started: their clients in the order declared.
struct McpConnections {
  std::vector<std::shared_ptr<mcp::Client>> clients;
  std::vector<std::string> names; // the server of each client
  // The session's: its calls wait and send HTTP through it, also on a client another session
  // started (a shareable server).
  engine::Io* io = nullptr;
  // Servers not required that could not start, one line each: the run goes on without them.
  std::vector<std::string> warnings;
};

// The clients of servers declared shareable, one per declaration for the whole process (a batch,
// a server), started by the first session that needs one. Thread-safe.
class SharedMcpClients {
public:
  // The client for `settings` (already expanded), started with `options` when none is running
  // (but its own blocking waits and transports: it outlives the session that starts it, whose
  // thread its start blocks); a server that could not start is tried again by the next session
  // that asks.
  Result<std::shared_ptr<mcp::Client>> get(const McpServerSettings& settings,
                                           const mcp::ClientOptions& options);

private:
  struct Entry;
  std::mutex
      m_mutex; // never held while a server starts: a fiber waiting on it would block its thread
  std::map<std::string, std::shared_ptr<Entry>> m_entries; // by declaration (JSON text)
  BlockingWaiter m_blocking;                               // for callers that give no waiter
};

// A server's declaration with `${VAR}` and `${VAR:-default}` expanded from `env` in its command,
// args, env values, url and header values. A value the session record did not keep (it may be a
// secret) is a config error naming it.
Result<McpServerSettings> expand_mcp_server(const McpServerSettings& server,
                                            const Environment& env);

// Starts config.mcp's enabled servers for a session in `workspace` (a shareable one shared
// through the runtime's). A required server that cannot start is the error; any other becomes a
// warning. `io` and `runtime` must outlive the clients.
Result<McpConnections> connect_mcp_servers(const Config& config,
                                           const std::filesystem::path& workspace, engine::Io& io,
                                           Runtime& runtime);

// The options a client started for a session gets: `io`'s waiter and transports, `env` for
// env_vars and tokens.
mcp::ClientOptions mcp_client_options(const std::filesystem::path& workspace, engine::Io& io,
                                      const Environment& env);

// One server as `ralph mcp list|check` show it: its declaration and what starting it showed.
struct McpServerReport {
  McpServerSettings settings;
  mcp::ServerStatus status; // state `stopped` for a disabled server, which is not started
};

// Starts each enabled server of `servers` at once (a thread each, within its startup_timeout),
// lists its tools and stops it again: the servers as a session would find them.
std::vector<McpServerReport> probe_mcp_servers(const std::vector<McpServerSettings>& servers,
                                               const std::filesystem::path& workspace,
                                               Runtime& runtime);

// Adds every tool of `servers` to `registry` as mcp__SERVER__TOOL: servers in their order, each
// server's tools in the order it lists them (a stable prompt for the provider's cache).
void add_mcp_tools(tools::Registry& registry, const McpConnections& servers,
                   std::size_t output_limit);

} // namespace ralph::session
