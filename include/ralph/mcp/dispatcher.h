#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/redactor.h"
#include "ralph/mcp/protocol.h"
#include "ralph/mcp/server_tool.h"

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::mcp {

// The largest JSON-RPC message the server reads (4 MiB); a longer one is refused with -32600.
inline constexpr std::size_t k_max_message_bytes = std::size_t{4} << 20;

struct IncomingRequest;

struct ServerIdentity {
  std::string name = "ralph";
  std::string version;
  std::string instructions;
};

// The dispatcher's answer to one message.
struct Reply {
  std::string body;          // the JSON-RPC response; empty for a notification or a response
  int error_code = 0;        // the JSON-RPC error the response carries; 0: a result
  bool modern = false;       // the request carried the 2026-07-28 `_meta` envelope
  std::string method;        // the request's method, when it had one
  bool initialize = false;   // a legacy `initialize` was answered
  bool bad_envelope = false; // the 2026-07-28 `_meta` was incomplete (-32602)
};

// The server's half of MCP in both eras, over any transport: one JSON-RPC message in, its
// response out. Requests run concurrently (thread-safe); a `tools/call` that is still running
// is cancelled by `notifications/cancelled` naming its id, or by `cancel`.
class Dispatcher {
public:
  // Notifications for the client while a call runs (progress), each one JSON-RPC message.
  using Send = std::function<void(const std::string& message)>;

  // Every answer and notification passes `redactor` (it must outlive the dispatcher; null:
  // none): a verifier's output may print a secret, and the client hands it to its model.
  Dispatcher(ServerIdentity identity, std::vector<std::unique_ptr<ServerTool>> tools,
             bool read_only = false, const Redactor* redactor = nullptr);

  // Handles one message's text. Never throws: malformed JSON is -32700, a message that is not
  // a request -32600, a batch array -32600 (batches left the protocol in 2025-06-18), an unknown
  // method -32601, a message over k_max_message_bytes -32600.
  Reply handle(std::string_view text, const Send& send, const CancelToken& cancel = {});

  // The tools, in the order `tools/list` gives them: the order given, the same on every call
  // and every start (2026-07-28 asks for a deterministic order, for clients' prompt caches).
  const std::vector<std::unique_ptr<ServerTool>>& tools() const { return m_tools; }

  // Cancels every running call (the client went away).
  void cancel_all();

private:
  Reply dispatch(const IncomingRequest& request, const Send& send, const CancelToken& cancel);

  ServerIdentity m_identity;
  std::vector<std::unique_ptr<ServerTool>> m_tools;
  bool m_read_only;
  const Redactor* m_redactor;
  std::mutex m_mutex;
  std::map<std::string, CancelToken> m_running; // by the request id's JSON text
  bool m_closed = false;                        // cancel_all() was called
};

} // namespace ralph::mcp
