#include "server/mcp_endpoint.h"

#include "server/access.h"
#include "server/mcp_tools.h"
#include "server/server_parts.h"

#include "ralph/core/json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <deque>
#include <thread>

namespace ralph::server {
namespace {

using nlohmann::json;

// A JSON-RPC error answered before the dispatcher saw the message, with its id when it had one.
HttpResponse rpc_error(int status, int code, const std::string& message,
                       const json& about = nullptr) {
  const json* id = member(about, "id");
  const bool usable = id != nullptr && (id->is_string() || id->is_number_integer());
  HttpResponse response;
  response.status = status;
  response.body = mcp::rpc_error_text(usable ? *id : json(nullptr), code, message);
  return response;
}

// The HTTP status of a JSON-RPC answer: the 2026-07-28 transport says 404 for an unknown method
// and 400 for a request the server could not take; legacy clients read errors from a 200's body,
// except for messages that were never a request.
int status_of(const mcp::Reply& reply) {
  switch (reply.error_code) {
  case mcp::k_parse_error:
  case mcp::k_invalid_request:
    return 400;
  case mcp::k_method_not_found:
    return reply.modern ? 404 : 200;
  case mcp::k_unsupported_version:
  case mcp::k_header_mismatch:
    return 400;
  case mcp::k_invalid_params:
    return reply.bad_envelope ? 400 : 200;
  default:
    return 200;
  }
}

// What a 2026-07-28 request's headers must repeat of its body: 400 with -32020 when they do not.
std::optional<HttpResponse> header_mismatch(const HttpRequest& request, const json& message) {
  const std::string method = std::string(string_member(message, "method"));
  const std::string header_method = request.header("mcp-method");
  if (header_method != method) {
    return rpc_error(400, mcp::k_header_mismatch,
                     fmt::format("Header mismatch: Mcp-Method is '{}', the body's method '{}'",
                                 header_method, method),
                     message);
  }
  const json* params = member(message, "params");
  if (method == "tools/call" && params != nullptr) {
    const std::string name = std::string(string_member(*params, "name"));
    if (request.header("mcp-name") != name) {
      return rpc_error(400, mcp::k_header_mismatch,
                       fmt::format("Header mismatch: Mcp-Name is '{}', the body's tool '{}'",
                                   request.header("mcp-name"), name),
                       message);
    }
  }
  const std::string version = request.header("mcp-protocol-version");
  const json* meta = params != nullptr ? member(*params, "_meta") : nullptr;
  const json* body_version =
      meta != nullptr ? member(*meta, "io.modelcontextprotocol/protocolVersion") : nullptr;
  if (!version.empty() && body_version != nullptr && body_version->is_string() &&
      *body_version != version) {
    return rpc_error(400, mcp::k_header_mismatch,
                     fmt::format("Header mismatch: MCP-Protocol-Version is '{}', the body's '{}'",
                                 version, body_version->get<std::string>()),
                     message);
  }
  return std::nullopt;
}

bool wants_progress(const json& message) {
  const json* params = member(message, "params");
  const json* meta = params != nullptr ? member(*params, "_meta") : nullptr;
  return string_member(message, "method") == "tools/call" && meta != nullptr &&
         member(*meta, "progressToken") != nullptr;
}

bool is_modern(const json& message) {
  const json* params = member(message, "params");
  const json* meta = params != nullptr ? member(*params, "_meta") : nullptr;
  return meta != nullptr && member(*meta, "io.modelcontextprotocol/protocolVersion") != nullptr;
}

// What a call answered on a stream has sent so far, handed from its worker to the connection.
struct StreamState {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<std::string> messages;
  bool done = false;
  CancelToken cancel;
};

// Held by the stream's writer: when the server lets go of the stream before the call's answer
// went out (the client hung up, and the server noticed before any write of ours failed), the
// call is cancelled.
struct StreamGuard {
  explicit StreamGuard(std::shared_ptr<StreamState> of) : state(std::move(of)) {}
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;
  std::shared_ptr<StreamState> state;
  ~StreamGuard() {
    const std::lock_guard lock(state->mutex);
    if (!state->done) {
      state->cancel.cancel();
    }
  }
};

} // namespace

McpEndpoint::McpEndpoint(ServerParts& parts)
    : m_parts(parts),
      m_dispatcher({.name = "ralph", .version = RALPH_VERSION, .instructions = k_mcp_instructions},
                   make_mcp_tools({.runtime = parts.runtime,
                                   .config = parts.request.config,
                                   .workspace = parts.request.workspace,
                                   .parts = &parts}),
                   parts.request.read_only, &parts.runtime.redactor()) {}

McpEndpoint::~McpEndpoint() {
  close();
}

void McpEndpoint::close() {
  m_dispatcher.cancel_all();
  std::unique_lock lock(m_mutex);
  m_idle.wait(lock, [this] { return m_streaming == 0; });
}

HttpResponse McpEndpoint::post(const HttpRequest& request) {
  const json message = json::parse(request.body, nullptr, false);
  const std::string session = request.header("mcp-session-id");
  if (!session.empty()) {
    const std::lock_guard lock(m_mutex);
    if (m_sessions.count(session) == 0) {
      return rpc_error(404, mcp::k_invalid_request,
                       "Mcp-Session-Id " + session + ": no such session (ended or never begun)",
                       message);
    }
  }
  // A 2025 request naming a version it did not negotiate (a 2026-07-28 request's version is in
  // its body: the dispatcher answers an unknown one with -32022).
  const std::string version = request.header("mcp-protocol-version");
  if (!version.empty() && !(message.is_object() && is_modern(message)) &&
      version != mcp::k_modern_version &&
      std::find(std::begin(mcp::k_legacy_versions), std::end(mcp::k_legacy_versions), version) ==
          std::end(mcp::k_legacy_versions)) {
    return rpc_error(400, mcp::k_invalid_request,
                     fmt::format("MCP-Protocol-Version {}: not a version this server speaks ({}, "
                                 "{}, {}, {})",
                                 version, mcp::k_modern_version, mcp::k_legacy_versions[0],
                                 mcp::k_legacy_versions[1], mcp::k_legacy_versions[2]),
                     message);
  }
  if (message.is_object() && is_modern(message)) {
    if (auto mismatch = header_mismatch(request, message)) {
      return *mismatch;
    }
  } else if (message.is_object() &&
             request.header("mcp-protocol-version") == mcp::k_modern_version) {
    // A 2026-07-28 request by its header whose body lacks the envelope.
    return rpc_error(400, mcp::k_invalid_params,
                     fmt::format("Invalid params: MCP-Protocol-Version is {} but the body has "
                                 "no _meta \"io.modelcontextprotocol/protocolVersion\"",
                                 mcp::k_modern_version),
                     message);
  }
  if (message.is_object() && wants_progress(message)) {
    // Progress goes out as it happens: the call runs on a worker, its messages stream out.
    auto state = std::make_shared<StreamState>();
    {
      const std::lock_guard lock(m_mutex);
      ++m_streaming;
    }
    std::thread([this, state, body = request.body] {
      const auto push = [&state](const std::string& text) {
        const std::lock_guard lock(state->mutex);
        state->messages.push_back(text);
        state->ready.notify_all();
      };
      const mcp::Reply reply = m_dispatcher.handle(body, push, state->cancel);
      {
        const std::lock_guard lock(state->mutex);
        if (!reply.body.empty()) {
          state->messages.push_back(reply.body);
        }
        state->done = true;
        state->ready.notify_all();
      }
      const std::lock_guard lock(m_mutex);
      --m_streaming;
      m_idle.notify_all();
    }).detach();
    HttpResponse response;
    response.content_type = "text/event-stream";
    response.headers = {{"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
    auto guard = std::make_shared<StreamGuard>(state);
    response.stream = [state, guard](StreamWriter& writer) {
      std::unique_lock lock(state->mutex);
      state->ready.wait_for(lock, std::chrono::milliseconds(200),
                            [&] { return state->done || !state->messages.empty(); });
      std::deque<std::string> messages = std::move(state->messages);
      state->messages.clear();
      const bool done = state->done;
      lock.unlock();
      for (const std::string& text : messages) {
        if (!writer.write("event: message\ndata: " + text + "\n\n")) {
          state->cancel.cancel(); // the client closed the stream: the call is cancelled
          return false;
        }
      }
      if (messages.empty() && !done && !writer.write(": keep-alive\n\n")) {
        state->cancel.cancel();
        return false;
      }
      return !done;
    };
    return response;
  }
  const mcp::Reply reply = m_dispatcher.handle(request.body, {});
  if (reply.body.empty()) {
    return HttpResponse{.status = 202, .body = {}};
  }
  HttpResponse response{.status = status_of(reply), .body = reply.body};
  if (reply.initialize && reply.error_code == 0) {
    const std::string id = random_token();
    {
      const std::lock_guard lock(m_mutex);
      m_sessions.insert(id);
    }
    response.headers.emplace_back("Mcp-Session-Id", id);
  }
  return response;
}

HttpResponse McpEndpoint::remove(const HttpRequest& request) {
  const std::string session = request.header("mcp-session-id");
  const std::lock_guard lock(m_mutex);
  if (session.empty() || m_sessions.erase(session) == 0) {
    return rpc_error(404, mcp::k_invalid_request, "Mcp-Session-Id: no such session");
  }
  return HttpResponse{.status = 200, .body = "{}"};
}

void add_mcp_route(HttpServer& server, McpEndpoint& endpoint) {
  server.route("POST", "/mcp", [&endpoint](const HttpRequest& r) { return endpoint.post(r); });
  server.route("DELETE", "/mcp", [&endpoint](const HttpRequest& r) { return endpoint.remove(r); });
  server.route("GET", "/mcp", [](const HttpRequest&) {
    HttpResponse response = rpc_error(405, mcp::k_invalid_request,
                                      "GET /mcp: this server opens no stream of its own; POST "
                                      "requests");
    response.headers.emplace_back("Allow", "POST, DELETE");
    return response;
  });
}

} // namespace ralph::server
