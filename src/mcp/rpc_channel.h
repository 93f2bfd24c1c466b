#pragma once

#include "rpc_message.h"

#include "ralph/core/cancel.h"
#include "ralph/core/waiter.h"
#include "ralph/http/transport.h"
#include "ralph/mcp/client.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace ralph::mcp {

// Why a request got no answer.
enum class RpcFailure {
  none,      // `result` or `error` is the server's answer
  timeout,   // the request's time ran out (the server was told to stop)
  cancelled, // the caller's token fired (the server was told to stop)
  closed,    // the server went away (a stdio child exited) before answering
  transport, // it could not be sent or the answer could not be read (HTTP)
};

struct RpcReply {
  Json result;
  std::optional<RpcError> error;
  RpcFailure failure = RpcFailure::none;
  std::string failure_message; // for `closed` and `transport`
  int http_status = 0;         // HTTP only: the status of the answer, when there was one
};

struct RpcRequest {
  std::string method;
  Json params = Json::object();
  std::string name; // the tool, resource or prompt named (the Mcp-Name header)
  // Current-era HTTP only: arguments mirrored into Mcp-Param-* headers.
  http::Headers headers;
  // This request's waits (stdio) and transport (HTTP); null or empty: the channel's own.
  Waiter* waiter = nullptr;
  std::function<std::unique_ptr<http::Transport>()> make_transport;
  std::chrono::milliseconds timeout{60'000};
  CancelToken cancel;
  // Set: the request asks for progress (`_meta.progressToken`) and each notifications/progress
  // for it arrives here, on the calling thread, with the notification's params.
  std::function<void(const Json&)> on_progress;
};

// One way of exchanging JSON-RPC messages with a server: the child's stdio or HTTP POSTs.
// Thread-safe: requests may run concurrently.
class RpcChannel {
public:
  virtual ~RpcChannel() = default;
  virtual RpcReply request(const RpcRequest& request) = 0;
  virtual void notify(const std::string& method, const Json& params) = 0;
  // The era and version the handshake settled on (HTTP sends them as headers).
  virtual void set_protocol(Era era, const std::string& version) = 0;
  // True once the server is gone for good (a stdio child exited).
  virtual bool closed() const = 0;
  // The last line the server wrote on stderr, or empty.
  virtual std::string last_stderr() const = 0;
  // The stdio child's process id; 0 for HTTP.
  virtual int pid() const = 0;
};

} // namespace ralph::mcp
