#pragma once

#include "server/http_server.h"

#include "ralph/mcp/dispatcher.h"

#include <condition_variable>
#include <mutex>
#include <set>
#include <string>

namespace ralph::server {

struct ServerParts;

// `/mcp` in `ralph serve`: the MCP dispatcher over streamable HTTP, in both eras, behind the
// server's own token, Host and Origin checks (its gate). POST answers with JSON, or with an
// event stream when a call asked for progress (closing it cancels the call); the 2026-07-28
// headers are checked against the body (400, -32020); legacy clients get an Mcp-Session-Id at
// `initialize`, which DELETE ends; GET is 405 (no server-initiated stream). Thread-safe.
class McpEndpoint {
public:
  explicit McpEndpoint(ServerParts& parts);
  ~McpEndpoint(); // close()

  HttpResponse post(const HttpRequest& request);
  HttpResponse remove(const HttpRequest& request);
  // Cancels the calls running and waits for their streams' workers.
  void close();

private:
  ServerParts& m_parts;
  mcp::Dispatcher m_dispatcher;
  std::mutex m_mutex;
  std::condition_variable m_idle;
  int m_streaming = 0;              // calls answered on a stream still running
  std::set<std::string> m_sessions; // legacy Mcp-Session-Ids issued and not deleted
};

void add_mcp_route(HttpServer& server, McpEndpoint& endpoint);

} // namespace ralph::server
