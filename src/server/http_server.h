#pragma once

#include "ralph/core/error.h"

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ralph::server {

// One request as a handler sees it: header names in lower case, the query decoded, `params`
// the route pattern's captured groups in order.
struct HttpRequest {
  std::string method;
  std::string path;
  std::map<std::string, std::string> headers;
  std::multimap<std::string, std::string> query;
  std::string body;
  std::vector<std::string> params;
  std::string remote_addr;

  std::string header(const std::string& lower_name) const;
  std::string query_value(const std::string& name) const;
  bool has_query(const std::string& name) const;
};

// Writes a streamed answer's bytes; false once the client is gone.
class StreamWriter {
public:
  virtual ~StreamWriter() = default;
  virtual bool write(std::string_view bytes) = 0;
};

// A streamed answer: called again and again on the connection's thread until it returns false
// (the answer ends) or a write fails. Each call must return within a fraction of a second, so
// that a stopping server is not held up by it.
using StreamBody = std::function<bool(StreamWriter&)>;

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  StreamBody stream; // set: the answer is streamed (chunked) instead of `body`
};

struct HttpServerOptions {
  std::string bind = "127.0.0.1";
  int port = 0;             // 0: a free port
  std::size_t threads = 96; // connections served at once (an open stream holds one)
  std::size_t max_body = 4 * 1024 * 1024;
  std::chrono::seconds read_timeout{10};
  std::chrono::seconds write_timeout{10}; // a client that stops reading a stream is let go
};

// An HTTP/1.1 server on its own threads (cpp-httplib, contained in one file). Routes are regular
// expressions over the whole path; `gate` sees every request first and may answer it instead.
class HttpServer {
public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;
  using Gate = std::function<std::optional<HttpResponse>(const HttpRequest&)>;

  explicit HttpServer(HttpServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  void route(const std::string& method, const std::string& pattern, Handler handler);
  // The answer to a path no route matches.
  void fallback(Handler handler);
  void gate(Gate gate);

  // Binds the socket; the port it got. An io error naming the address when it cannot.
  Result<int> bind();
  // Serves until stop(); returns once every connection's handler has returned.
  void listen();
  // From any thread.
  void stop();

private:
  struct State;
  std::unique_ptr<State> m_state;
};

} // namespace ralph::server
