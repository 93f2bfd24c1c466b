#pragma once

#include "rpc_channel.h"

#include "ralph/http/transport.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace ralph::mcp {

// Streamable HTTP: every message its own POST, the answer as application/json or as an
// event stream of this request's notifications (progress) ending with its response. Carries the
// era's headers (MCP-Protocol-Version; Mcp-Method and Mcp-Name for the current era;
// Mcp-Session-Id as a legacy server gave it). A cancel of the current era closes the stream;
// a legacy server is also sent notifications/cancelled.
class HttpChannel final : public RpcChannel {
public:
  using TransportFactory = std::function<std::unique_ptr<http::Transport>()>;
  using NotificationHandler = std::function<void(const RpcMessage&)>;

  HttpChannel(std::string url, http::Headers headers, TransportFactory make_transport,
              NotificationHandler on_notification);
  // Ends a legacy session the server opened (DELETE with its Mcp-Session-Id).
  ~HttpChannel() override;
  HttpChannel(const HttpChannel&) = delete;
  HttpChannel& operator=(const HttpChannel&) = delete;

  RpcReply request(const RpcRequest& request) override;
  void notify(const std::string& method, const Json& params) override;
  void set_protocol(Era era, const std::string& version) override;
  bool closed() const override { return false; }
  std::string last_stderr() const override { return {}; }
  int pid() const override { return 0; }

private:
  Era era() const;
  void send_notification(const TransportFactory& make_transport, const std::string& method,
                         const Json& params);
  http::Headers headers_for(const std::string& method, const std::string& name) const;
  void remember_session(const http::Response& response);

  std::string m_url;
  http::Headers m_headers;
  TransportFactory m_make_transport;
  NotificationHandler m_on_notification;
  std::atomic<std::int64_t> m_next_id{1};
  mutable std::mutex m_mutex; // guards the three below
  Era m_era = Era::unknown;
  std::string m_version;
  std::string m_session_id;
};

} // namespace ralph::mcp
