#include "server/http_server.h"

#include "ralph/core/text.h"

#include <httplib.h>

namespace ralph::server {

std::string HttpRequest::header(const std::string& lower_name) const {
  const auto found = headers.find(lower_name);
  return found == headers.end() ? std::string() : found->second;
}

std::string HttpRequest::query_value(const std::string& name) const {
  const auto found = query.find(name);
  return found == query.end() ? std::string() : found->second;
}

bool HttpRequest::has_query(const std::string& name) const {
  return query.find(name) != query.end();
}

namespace {

HttpRequest request_of(const httplib::Request& in) {
  HttpRequest out;
  out.method = in.method;
  out.path = in.path;
  for (const auto& [name, value] : in.headers) {
    out.headers.emplace(to_lower_ascii(name), value);
  }
  for (const auto& [name, value] : in.params) {
    out.query.emplace(name, value);
  }
  out.body = in.body;
  for (std::size_t i = 1; i < in.matches.size(); ++i) {
    out.params.push_back(in.matches[i].str());
  }
  out.remote_addr = in.remote_addr;
  return out;
}

class SinkWriter final : public StreamWriter {
public:
  explicit SinkWriter(httplib::DataSink& sink) : m_sink(sink) {}
  bool write(std::string_view bytes) override {
    return m_sink.is_writable() && m_sink.write(bytes.data(), bytes.size());
  }

private:
  httplib::DataSink& m_sink;
};

void answer(const HttpResponse& from, httplib::Response& to) {
  to.status = from.status;
  for (const auto& [name, value] : from.headers) {
    to.set_header(name, value);
  }
  if (from.stream) {
    StreamBody stream = from.stream;
    to.set_chunked_content_provider(from.content_type,
                                    [stream](std::size_t, httplib::DataSink& sink) {
                                      SinkWriter writer(sink);
                                      if (!stream(writer)) {
                                        sink.done();
                                      }
                                      return sink.is_writable();
                                    });
    return;
  }
  to.set_content(from.body, from.content_type);
}

} // namespace

struct HttpServer::State {
  HttpServerOptions options;
  httplib::Server server;
  Gate gate;
  Handler fallback;
  int port = 0;
};

HttpServer::HttpServer(HttpServerOptions options) : m_state(std::make_unique<State>()) {
  m_state->options = std::move(options);
  httplib::Server& server = m_state->server;
  const std::size_t threads = m_state->options.threads;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.set_payload_max_length(m_state->options.max_body);
  server.set_read_timeout(m_state->options.read_timeout);
  server.set_write_timeout(m_state->options.write_timeout);
  server.set_keep_alive_max_count(100);
  // An SSE frame or an answer's body after its headers goes out at once, not after the
  // client's delayed ACK of the previous write (up to 40 ms on Linux).
  server.set_tcp_nodelay(true);
  server.set_pre_routing_handler(
      [state = m_state.get()](const httplib::Request& in, httplib::Response& out) {
        if (!state->gate) {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        const std::optional<HttpResponse> refused = state->gate(request_of(in));
        if (!refused) {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        answer(*refused, out);
        return httplib::Server::HandlerResponse::Handled;
      });
  server.set_error_handler(
      [state = m_state.get()](const httplib::Request& in, httplib::Response& out) {
        // Only a request no route took reaches here with 404 and nothing written.
        if (out.status == 404 && out.body.empty() && state->fallback) {
          answer(state->fallback(request_of(in)), out);
        }
      });
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& out, const std::exception_ptr&) {
        out.status = 500;
        out.set_content(R"({"error":{"code":"internal","message":"the request failed"}})",
                        "application/json; charset=utf-8");
      });
}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::route(const std::string& method, const std::string& pattern, Handler handler) {
  auto wrapped = [handler = std::move(handler)](const httplib::Request& in,
                                                httplib::Response& out) {
    answer(handler(request_of(in)), out);
  };
  httplib::Server& server = m_state->server;
  if (method == "GET") {
    server.Get(pattern, wrapped);
  } else if (method == "POST") {
    server.Post(pattern, wrapped);
  } else if (method == "DELETE") {
    server.Delete(pattern, wrapped);
  } else if (method == "PUT") {
    server.Put(pattern, wrapped);
  }
}

void HttpServer::fallback(Handler handler) {
  m_state->fallback = std::move(handler);
}

void HttpServer::gate(Gate gate) {
  m_state->gate = std::move(gate);
}

Result<int> HttpServer::bind() {
  const HttpServerOptions& options = m_state->options;
  httplib::Server& server = m_state->server;
  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.bind);
  } else if (!server.bind_to_port(options.bind, port)) {
    port = -1;
  }
  if (port <= 0) {
    return fail(ErrorKind::io, "cannot listen on " + options.bind + ":" +
                                   std::to_string(options.port) +
                                   " (the port is taken, or the address is not this machine's)");
  }
  m_state->port = port;
  return port;
}

void HttpServer::listen() {
  m_state->server.listen_after_bind();
}

void HttpServer::stop() {
  if (m_state->server.is_running()) {
    m_state->server.stop();
  }
}

} // namespace ralph::server
