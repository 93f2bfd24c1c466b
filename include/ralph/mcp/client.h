#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/core/settings.h"
#include "ralph/core/waiter.h"
#include "ralph/http/transport.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::mcp {

// The protocol generation a server answered in: `legacy` is 2025-11-25 and before (an
// `initialize` handshake), `modern` 2026-07-28 (stateless, `server/discover`).
enum class Era { unknown, legacy, modern };

// A tool as the server lists it. Schemas are JSON text as the server sent them.
struct RemoteTool {
  std::string name;
  std::string title;
  std::string description;
  std::string input_schema = R"({"type":"object","properties":{}})";
  std::string output_schema; // empty: none declared
};

enum class ServerState {
  stopped, // not started yet, or shut down
  running,
  failed, // could not start, or crashed again after its one restart
};

// What `ralph mcp list|check` shows of one server.
struct ServerStatus {
  std::string name;
  std::string transport; // "stdio" or "http"
  ServerState state = ServerState::stopped;
  Era era = Era::unknown;
  std::string protocol_version; // as negotiated ("2025-11-25", "2026-07-28")
  std::string server_name;      // serverInfo
  std::string server_version;
  std::vector<RemoteTool> tools; // after enabled_tools/disabled_tools, in the server's order
  int restarts = 0;
  std::string last_error; // empty when none
  int pid = 0;            // a running stdio server's process id; 0 otherwise
};

struct CallProgress {
  double progress = 0;
  std::optional<double> total;
  std::string message;
};

struct CallOptions {
  CancelToken cancel;                   // a cancel sends the server its cancellation
  std::chrono::milliseconds timeout{0}; // 0: the server's tool_timeout
  std::function<void(const CallProgress&)> on_progress; // may be empty
  // This call's waits and HTTP requests when they must not be the client's own: a server shared
  // by sessions on several fibers or threads is called with each caller's. Null or empty: the
  // ClientOptions' ones.
  Waiter* waiter = nullptr;
  std::function<std::unique_ptr<http::Transport>()> make_transport;
};

// A tool call's outcome, for the model: `text` is the structured content (JSON) when the server
// gave one, else its text content joined (other kinds of content as a placeholder line).
// Protocol errors, `isError` results, timeouts and a dead server are all `is_error` results.
struct CallResult {
  std::string text;
  bool is_error = false;
  bool timed_out = false;
  bool cancelled = false;
  std::chrono::milliseconds duration{0};
};

// What a client needs from where it runs. Everything must outlive the client.
struct ClientOptions {
  std::filesystem::path workspace; // a stdio server's working directory unless `cwd` says
  // Waits on the client's file descriptors: a fiber's parks it, the default blocks the thread.
  Waiter* waiter = nullptr;
  // Makes an HTTP transport (one per request in flight); empty: a blocking libcurl one.
  std::function<std::unique_ptr<http::Transport>()> make_transport;
  // Reads ralph's environment for `env_vars` and `bearer_token_env_var`; returns nullptr when
  // unset.
  std::function<const char*(const char*)> getenv;
  // Each line a stdio server writes on stderr (for the session log), and each line on its
  // stdout that is not JSON-RPC (ignored otherwise); may be empty. Called on the connection's
  // reader thread, so it must be thread-safe.
  std::function<void(std::string_view)> on_stderr;
};

// A connection to one MCP server, over stdio (a child process, restarted once if it dies) or
// streamable HTTP; the current protocol era is tried first, then the older one, and what worked
// is remembered for the life of the client. Thread-safe: calls may run concurrently from several
// threads or fibers.
// connect() costs a process start (or an HTTP round trip) plus two to four exchanges; a legacy
// stdio server that ignores `server/discover` costs up to half the startup timeout more.
// Destruction may take up to ~4 s for a stdio server that ignores its closed stdin and SIGTERM.
// Progress callbacks run on the calling thread.
class Client {
public:
  virtual ~Client() = default; // stdio: closes stdin, then SIGTERM, then SIGKILL; HTTP: DELETE

  // Starts the server and lists its tools (within settings.startup_timeout). A server that
  // cannot start, or answers neither era, is the error (kind `tool`).
  static Result<std::unique_ptr<Client>> connect(const McpServerSettings& settings,
                                                 const ClientOptions& options);

  // The tools offered, in the server's order, filtered by enabled_tools/disabled_tools; listed
  // again (all pages) after the server said its list changed.
  virtual std::vector<RemoteTool> tools() = 0;
  // Calls one tool with `arguments_json` (an object as JSON text).
  virtual CallResult call(const std::string& tool, const std::string& arguments_json,
                          const CallOptions& options) = 0;
  virtual ServerStatus status() const = 0;
};

} // namespace ralph::mcp
