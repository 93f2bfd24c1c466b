#include "ralph/server/serve.h"

#include "server/hosting.h"
#include "server/mcp_endpoint.h"

#include "ralph/core/try.h"
#include "ralph/session/record.h"
#include "ralph/session/settings.h"
#include "ralph/store/goal_queue.h"
#include "ralph/store/open_session_store.h"

#include <fstream>
#include <sys/stat.h>
#include <thread>

namespace ralph::server {
namespace fs = std::filesystem;

namespace {

Result<void> write_token(const fs::path& file, const std::string& token) {
  std::error_code error;
  fs::create_directories(file.parent_path(), error);
  fs::remove(file, error);
  {
    std::ofstream out(file);
    if (!out) {
      return fail(ErrorKind::io, file.string() + ": cannot write the API token");
    }
  }
  // Readable by its owner only, before the secret goes in.
  ::chmod(file.c_str(), S_IRUSR | S_IWUSR);
  std::ofstream out(file, std::ios::trunc);
  out << token << '\n';
  if (!out.flush()) {
    return fail(ErrorKind::io, file.string() + ": cannot write the API token");
  }
  return {};
}

// Which routes a request may reach without a credential: signing in, the health check, and the
// page and its files (they hold no data; the page asks the API, which wants one).
bool needs_credential(const std::string& path) {
  return path == "/mcp" ||
         (path != "/login" && path != "/api/v1/health" && path.rfind("/api/", 0) == 0);
}

} // namespace

Result<void> serve(session::Runtime& runtime, const ServeRequest& request, ServeObserver& observer,
                   const CancelToken& stop) {
  if (!is_loopback(request.bind) && request.token.empty()) {
    return fail(ErrorKind::usage,
                "--bind " + request.bind +
                    ": a server others can reach needs a token (RALPH_SERVE_TOKEN or "
                    "--token-file); put it behind a TLS proxy");
  }
  if (!request.config.store.enabled) {
    return fail(ErrorKind::config, "store.enabled is off: ralph serve shows recorded sessions");
  }
  const std::string token = request.token.empty() ? random_token() : request.token;
  fs::path token_file;
  if (request.token.empty()) {
    token_file = request.token_file.empty() ? request.workspace / ".ralph" / "serve" / "token"
                                            : request.token_file;
  }

  HttpServer http({.bind = request.bind,
                   .port = request.port,
                   .threads = static_cast<std::size_t>(request.max_streams) + 32});
  TRY_ASSIGN(const int port, http.bind());
  TRY_ASSIGN(const std::unique_ptr<Hosting> hosting,
             Hosting::open(runtime, request, token, port, observer));
  if (!token_file.empty()) {
    TRY(write_token(token_file, token));
  }
  ServerParts& parts = hosting->parts();
  Access& access = hosting->access();
  http.gate([&access](const HttpRequest& r) { return access.check(r, needs_credential(r.path)); });
  add_session_routes(http, parts);
  add_batch_routes(http, parts);
  add_stream_route(http, parts);
  add_web_routes(http, parts);
  McpEndpoint mcp(parts);
  add_mcp_route(http, mcp);

  std::thread listener([&http] { http.listen(); });
  const std::string shown_host =
      request.bind == "0.0.0.0" || request.bind == "::"
          ? std::string("127.0.0.1")
          : (request.bind.find(':') != std::string::npos ? "[" + request.bind + "]" : request.bind);
  const std::string url = "http://" + shown_host + ":" + std::to_string(port) + "/";
  observer.listening({.url = url,
                      .login_url = url + "login?code=" + access.new_login_code(),
                      .token_file = token_file,
                      .port = port});
  while (!stop.cancelled()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // Sessions end interrupted (recorded, resumable) before the streams close.
  parts.host.stop_all();
  mcp.close();
  http.stop();
  parts.bus.close();
  listener.join();
  return {};
}

} // namespace ralph::server
