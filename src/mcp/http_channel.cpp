#include "http_channel.h"

#include "param_headers.h"

#include "ralph/http/sse_decoder.h"

#include <fmt/format.h>

#include <optional>
#include <utility>

namespace ralph::mcp {
namespace {

// The largest answer read; a bigger one is cut off as a failure instead of filling memory.
constexpr std::size_t max_answer_bytes = std::size_t{64} << 20;

std::string head_of(std::string_view text) {
  std::string head(text.substr(0, 200));
  for (char& c : head) {
    if (c == '\n' || c == '\r') {
      c = ' ';
    }
  }
  return head;
}

} // namespace

HttpChannel::HttpChannel(std::string url, http::Headers headers, TransportFactory make_transport,
                         NotificationHandler on_notification)
    : m_url(std::move(url)), m_headers(std::move(headers)),
      m_make_transport(std::move(make_transport)), m_on_notification(std::move(on_notification)) {}

HttpChannel::~HttpChannel() {
  std::string session;
  {
    const std::lock_guard lock(m_mutex);
    session = m_session_id;
  }
  if (session.empty()) {
    return;
  }
  http::Request request;
  request.method = "DELETE";
  request.url = m_url;
  request.headers = m_headers;
  request.headers.emplace_back("Mcp-Session-Id", session);
  request.total_timeout = std::chrono::seconds(2);
  // Many servers answer 405 (no session ending); either way the client is done with it.
  [[maybe_unused]] auto ignored = m_make_transport()->send(
      request, [](std::string_view) { return true; }, CancelToken());
}

Era HttpChannel::era() const {
  const std::lock_guard lock(m_mutex);
  return m_era;
}

void HttpChannel::set_protocol(Era era, const std::string& version) {
  const std::lock_guard lock(m_mutex);
  m_era = era;
  m_version = version;
}

http::Headers HttpChannel::headers_for(const std::string& method, const std::string& name) const {
  http::Headers headers = m_headers;
  headers.emplace_back("Content-Type", "application/json");
  headers.emplace_back("Accept", "application/json, text/event-stream");
  const std::lock_guard lock(m_mutex);
  if (!m_version.empty()) {
    headers.emplace_back("MCP-Protocol-Version", m_version);
  }
  if (m_era != Era::legacy) {
    headers.emplace_back("Mcp-Method", method);
    if (!name.empty()) {
      headers.emplace_back("Mcp-Name", header_value(name));
    }
  }
  if (!m_session_id.empty()) {
    headers.emplace_back("Mcp-Session-Id", m_session_id);
  }
  return headers;
}

void HttpChannel::remember_session(const http::Response& response) {
  const std::string_view session = response.header("mcp-session-id");
  if (!session.empty()) {
    const std::lock_guard lock(m_mutex);
    m_session_id = std::string(session);
  }
}

RpcReply HttpChannel::request(const RpcRequest& request) {
  const std::int64_t id = m_next_id.fetch_add(1);
  Json params = request.params.is_null() ? Json::object() : request.params;
  if (request.on_progress) {
    params["_meta"]["progressToken"] = id;
  }
  http::Request http_request;
  http_request.url = m_url;
  http_request.headers = headers_for(request.method, request.name);
  if (era() != Era::legacy) {
    http_request.headers.insert(http_request.headers.end(), request.headers.begin(),
                                request.headers.end());
  }
  http_request.body = rpc_request_text(id, request.method, params);
  http_request.total_timeout = request.timeout;
  // A long call may be quiet for its whole time limit.
  http_request.idle_timeout = request.timeout;

  RpcReply reply;
  bool answered = false;
  const auto on_message = [&](std::string_view text) {
    auto parsed = parse_rpc_message(text);
    if (!parsed) {
      return;
    }
    RpcMessage& message = *parsed;
    if (message.kind == RpcKind::response) {
      if (message.id == Json(id)) {
        reply.result = std::move(message.result);
        reply.error = std::move(message.error);
        answered = true;
      }
    } else if (message.kind == RpcKind::notification) {
      if (message.method == "notifications/progress") {
        if (request.on_progress && message.params.is_object() &&
            message.params.value("progressToken", Json()) == Json(id)) {
          request.on_progress(message.params);
        }
      } else if (m_on_notification) {
        m_on_notification(message);
      }
    }
  };
  http::SseDecoder sse([&](const http::SseEvent& event) { on_message(event.data); });
  std::optional<bool> is_json; // decided by the first byte of the body
  std::string json_body;
  std::size_t received = 0;
  const http::BodySink sink = [&](std::string_view chunk) {
    received += chunk.size();
    if (received > max_answer_bytes) {
      return false;
    }
    if (!is_json) {
      const auto first = chunk.find_first_not_of(" \t\r\n");
      if (first == std::string_view::npos) {
        json_body.append(chunk);
        return !request.cancel.cancelled();
      }
      is_json = chunk[first] == '{' || chunk[first] == '[';
      if (!*is_json) {
        sse.feed(json_body);
        json_body.clear();
      }
    }
    if (*is_json) {
      json_body.append(chunk);
    } else {
      sse.feed(chunk);
    }
    // The answer came: closing the stream now is no cancel.
    return !request.cancel.cancelled() || answered;
  };
  const auto transport = request.make_transport ? request.make_transport() : m_make_transport();
  auto response = transport->send(http_request, sink, request.cancel);
  if (!response) {
    if (answered) {
      return reply;
    }
    if (received > max_answer_bytes) {
      reply.failure = RpcFailure::transport;
      reply.failure_message = fmt::format("the answer to `{}` from {} is over {} bytes",
                                          request.method, m_url, max_answer_bytes);
      return reply;
    }
    const Error& error = response.error();
    if (error.kind == ErrorKind::cancelled || error.kind == ErrorKind::timeout) {
      reply.failure =
          error.kind == ErrorKind::cancelled ? RpcFailure::cancelled : RpcFailure::timeout;
      // The current era's cancel is the closed stream; a legacy server is told.
      if (era() == Era::legacy) {
        send_notification(
            request.make_transport ? request.make_transport : m_make_transport,
            "notifications/cancelled",
            {{"requestId", id},
             {"reason",
              reply.failure == RpcFailure::cancelled ? "cancelled by the client" : "timed out"}});
      }
      return reply;
    }
    reply.failure = RpcFailure::transport;
    reply.failure_message = error.message;
    return reply;
  }
  reply.http_status = response->status;
  remember_session(*response);
  if (response->status < 200 || response->status >= 300) {
    // An error body may still be a JSON-RPC error (the current era's -32022 is one).
    on_message(response->body);
    if (!answered) {
      reply.failure = RpcFailure::transport;
      reply.failure_message =
          fmt::format("HTTP {} from {}: {}", response->status, m_url, head_of(response->body));
    }
    return reply;
  }
  if (is_json.value_or(true)) {
    on_message(json_body);
  }
  if (!answered) {
    reply.failure = RpcFailure::transport;
    reply.failure_message =
        fmt::format("no answer to `{}` from {} (HTTP {})", request.method, m_url, response->status);
  }
  return reply;
}

void HttpChannel::notify(const std::string& method, const Json& params) {
  send_notification(m_make_transport, method, params);
}

void HttpChannel::send_notification(const TransportFactory& make_transport,
                                    const std::string& method, const Json& params) {
  http::Request http_request;
  http_request.url = m_url;
  http_request.headers = headers_for(method, "");
  http_request.body = rpc_notification_text(method, params);
  http_request.total_timeout = std::chrono::seconds(10);
  const auto transport = make_transport();
  // A notification's answer (202) says nothing worth acting on.
  [[maybe_unused]] auto ignored = transport->send(
      http_request, [](std::string_view) { return true; }, CancelToken());
}

} // namespace ralph::mcp
