#include "ralph/mcp/client.h"

#include "handshake.h"
#include "http_channel.h"
#include "param_headers.h"
#include "rpc_channel.h"
#include "stdio_channel.h"
#include "tool_call_result.h"
#include "tool_list.h"

#include "ralph/core/json.h"
#include "ralph/core/try.h"
#include "ralph/http/curl_transport.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <poll.h>
#include <unistd.h>
#include <utility>

namespace ralph::mcp {
namespace {

using std::chrono::milliseconds;

milliseconds to_ms(Duration d) {
  return std::chrono::duration_cast<milliseconds>(d);
}

class McpClient final : public Client {
public:
  McpClient(McpServerSettings settings, const ClientOptions& options)
      : m_settings(std::move(settings)), m_options(options) {
    m_status.name = m_settings.name;
    m_status.transport = m_settings.url.empty() ? "stdio" : "http";
  }

  Result<void> start() {
    auto channel = start_channel();
    if (!channel) {
      const std::lock_guard lock(m_mutex);
      m_status.state = ServerState::failed;
      m_status.last_error = channel.error().message;
      return fail(channel.error());
    }
    const std::lock_guard lock(m_mutex);
    m_channel = *std::move(channel);
    return {};
  }

  std::vector<RemoteTool> tools() override {
    if (m_tools_stale.exchange(false)) {
      std::string why;
      if (auto channel = running_channel(why)) {
        auto listed =
            list_tools(*channel, meta_adder(), m_settings, to_ms(m_settings.startup_timeout));
        const std::lock_guard lock(m_mutex);
        if (listed) {
          m_status.tools = std::move(listed->tools);
          m_param_headers = std::move(listed->param_headers);
        } else {
          m_status.last_error = listed.error().message;
        }
      }
    }
    const std::lock_guard lock(m_mutex);
    return m_status.tools;
  }

  CallResult call(const std::string& tool, const std::string& arguments_json,
                  const CallOptions& options) override {
    const auto start = std::chrono::steady_clock::now();
    CallResult result = call_once(tool, arguments_json, options);
    result.duration =
        std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start);
    return result;
  }

  ServerStatus status() const override {
    const std::lock_guard lock(m_mutex);
    ServerStatus status = m_status;
    if (m_channel && status.state == ServerState::running) {
      status.pid = m_channel->closed() ? 0 : m_channel->pid();
      // A server that died is `stopped` while its one restart is still to come (at the next
      // call), `failed` once that is spent.
      if (m_channel->closed()) {
        status.state = status.restarts >= 1 ? ServerState::failed : ServerState::stopped;
      }
    }
    return status;
  }

private:
  CallResult call_once(const std::string& tool, const std::string& arguments_json,
                       const CallOptions& options) {
    CallResult result;
    result.is_error = true;
    Json arguments = arguments_json.find_first_not_of(" \t\r\n") == std::string::npos
                         ? Json::object()
                         : Json::parse(arguments_json, nullptr, false);
    if (!arguments.is_object()) {
      result.text = fmt::format("the arguments for MCP tool `{}` are not a JSON object", tool);
      return result;
    }
    std::string why;
    const auto channel = running_channel(why);
    if (!channel) {
      result.text = why;
      return result;
    }
    RpcRequest request;
    request.method = "tools/call";
    {
      const std::lock_guard lock(m_mutex);
      if (const auto it = m_param_headers.find(tool); it != m_param_headers.end()) {
        request.headers = param_header_values(it->second, arguments);
      }
    }
    request.params = with_meta({{"name", tool}, {"arguments", std::move(arguments)}});
    request.name = tool;
    request.timeout =
        options.timeout.count() > 0 ? options.timeout : to_ms(m_settings.tool_timeout);
    request.cancel = options.cancel;
    request.waiter = options.waiter;
    request.make_transport = options.make_transport;
    if (options.on_progress) {
      request.on_progress = [&options](const Json& params) {
        CallProgress progress;
        if (const auto it = params.find("progress"); it != params.end() && it->is_number()) {
          progress.progress = it->get<double>();
        }
        if (const auto it = params.find("total"); it != params.end() && it->is_number()) {
          progress.total = it->get<double>();
        }
        if (const auto it = params.find("message"); it != params.end() && it->is_string()) {
          progress.message = it->get<std::string>();
        }
        options.on_progress(progress);
      };
    }
    const RpcReply reply = channel->request(request);
    const std::string where = fmt::format("MCP tool `{}` of server `{}`", tool, m_settings.name);
    switch (reply.failure) {
    case RpcFailure::none:
      break;
    case RpcFailure::timeout:
      result.timed_out = true;
      result.text = fmt::format("{} did not answer within {} ms; it was told to stop", where,
                                request.timeout.count());
      return result;
    case RpcFailure::cancelled:
      result.cancelled = true;
      result.text = fmt::format("{} was cancelled", where);
      return result;
    case RpcFailure::closed: {
      const std::string last = channel->last_stderr();
      result.text = fmt::format("MCP server `{}` exited during the call to `{}`{}", m_settings.name,
                                tool, last.empty() ? "" : "; its last stderr line: " + last);
      const std::lock_guard lock(m_mutex);
      m_status.last_error = result.text;
      return result;
    }
    case RpcFailure::transport:
      result.text = fmt::format("{} failed: {}", where, reply.failure_message);
      return result;
    }
    if (reply.error) {
      result.text = fmt::format("{} failed: {} (JSON-RPC error {})", where, reply.error->message,
                                reply.error->code);
      return result;
    }
    if (reply.result.is_object() && string_member(reply.result, "resultType") == "input_required") {
      result.text = fmt::format("{} asked for input from the user, which ralph cannot give", where);
      return result;
    }
    return tool_call_result(reply.result);
  }

  // Closed (POLLHUP on its read end) when a restart is over: every caller waiting on it wakes,
  // through the Waiter, so a fiber parks instead of blocking the thread a restarter runs on.
  struct RestartGate {
    int read = -1;
    int write = -1;
    RestartGate() {
      int fds[2];
      if (::pipe2(fds, O_CLOEXEC) == 0) {
        read = fds[0];
        write = fds[1];
      }
    }
    ~RestartGate() {
      open();
      if (read >= 0) {
        ::close(read);
      }
    }
    RestartGate(const RestartGate&) = delete;
    RestartGate& operator=(const RestartGate&) = delete;
    void open() {
      if (write >= 0) {
        ::close(write);
        write = -1;
      }
    }
  };

  Waiter& waiter() { return m_options.waiter != nullptr ? *m_options.waiter : m_blocking; }

  // The current channel; a stdio server that died is started again once, then never.
  std::shared_ptr<RpcChannel> running_channel(std::string& why) {
    while (true) {
      std::shared_ptr<RestartGate> other_restart;
      std::shared_ptr<RestartGate> gate;
      std::shared_ptr<RpcChannel> dead;
      {
        const std::lock_guard lock(m_mutex);
        if (m_restarting) {
          other_restart = m_restarting;
        } else if (m_channel && !m_channel->closed()) {
          return m_channel;
        } else if (m_status.state == ServerState::failed || !m_channel) {
          why = m_status.last_error.empty()
                    ? fmt::format("MCP server `{}` is not running", m_settings.name)
                    : m_status.last_error;
          return nullptr;
        } else if (m_status.restarts >= 1) {
          const std::string last = m_channel->last_stderr();
          m_status.state = ServerState::failed;
          m_status.last_error =
              fmt::format("MCP server `{}` exited again after its one restart, so its tools are "
                          "unavailable{}",
                          m_settings.name, last.empty() ? "" : "; its last stderr line: " + last);
          why = m_status.last_error;
          return nullptr;
        } else {
          ++m_status.restarts;
          dead = std::move(m_channel);
          gate = std::make_shared<RestartGate>();
          m_restarting = gate;
        }
      }
      if (other_restart) {
        pollfd p{other_restart->read, POLLIN, 0};
        waiter().poll(&p, 1, milliseconds(1000));
        continue;
      }
      dead.reset(); // reaps the old process before the new one starts
      auto fresh = start_channel();
      const std::lock_guard lock(m_mutex);
      m_restarting.reset();
      gate->open();
      if (!fresh) {
        m_status.state = ServerState::failed;
        m_status.last_error = fmt::format("MCP server `{}` could not be restarted: {}",
                                          m_settings.name, fresh.error().message);
        why = m_status.last_error;
        return nullptr;
      }
      m_channel = *std::move(fresh);
      return m_channel;
    }
  }

  const char* env(const char* name) const {
    return m_options.getenv ? m_options.getenv(name) : std::getenv(name);
  }

  Result<std::shared_ptr<RpcChannel>> make_channel() {
    const auto on_notification = [this](const RpcMessage& message) {
      if (message.method == "notifications/tools/list_changed") {
        m_tools_stale = true;
      }
    };
    if (!m_settings.url.empty()) {
      http::Headers headers(m_settings.headers.begin(), m_settings.headers.end());
      if (!m_settings.bearer_token_env_var.empty()) {
        const char* token = env(m_settings.bearer_token_env_var.c_str());
        if (token == nullptr) {
          return fail(ErrorKind::config, fmt::format("bearer_token_env_var: ${} is not set",
                                                     m_settings.bearer_token_env_var));
        }
        headers.emplace_back("Authorization", fmt::format("Bearer {}", token));
      }
      auto make_transport = m_options.make_transport;
      if (!make_transport) {
        make_transport = [] { return std::make_unique<http::CurlTransport>(); };
      }
      return std::make_shared<HttpChannel>(m_settings.url, std::move(headers),
                                           std::move(make_transport), on_notification);
    }
    StdioLaunch launch;
    launch.argv.push_back(m_settings.command);
    launch.argv.insert(launch.argv.end(), m_settings.args.begin(), m_settings.args.end());
    launch.cwd = m_settings.cwd.empty()
                     ? m_options.workspace
                     : m_options.workspace / std::filesystem::path(m_settings.cwd);
    for (const char* name : {"PATH", "HOME"}) {
      if (const char* value = env(name); value != nullptr && m_settings.env.count(name) == 0) {
        launch.environment.push_back(fmt::format("{}={}", name, value));
      }
    }
    for (const std::string& name : m_settings.env_vars) {
      if (const char* value = env(name.c_str());
          value != nullptr && m_settings.env.count(name) == 0 && name != "PATH" && name != "HOME") {
        launch.environment.push_back(fmt::format("{}={}", name, value));
      }
    }
    for (const auto& [name, value] : m_settings.env) {
      launch.environment.push_back(fmt::format("{}={}", name, value));
    }
    Waiter& waiter = m_options.waiter != nullptr ? *m_options.waiter : m_blocking;
    TRY_ASSIGN(auto channel,
               StdioChannel::start(launch, waiter, m_options.on_stderr, on_notification));
    return std::shared_ptr<RpcChannel>(std::move(channel));
  }

  // Starts the server, settles the era and lists the tools, within the startup timeout.
  Result<std::shared_ptr<RpcChannel>> start_channel() {
    const auto deadline = std::chrono::steady_clock::now() + to_ms(m_settings.startup_timeout);
    auto channel = make_channel();
    if (!channel) {
      return fail(ErrorKind::tool,
                  fmt::format("MCP server `{}`: {}", m_settings.name, channel.error().message));
    }
    auto settled = handshake(**channel, era(), deadline);
    if (!settled) {
      return fail(ErrorKind::tool, fmt::format("MCP server `{}`: {}", m_settings.name,
                                               with_stderr(settled.error().message, **channel)));
    }
    {
      const std::lock_guard lock(m_mutex);
      m_status.era = settled->era;
      m_status.protocol_version = settled->version;
      m_status.server_name = settled->server_name;
      m_status.server_version = settled->server_version;
    }
    m_tools_stale = false;
    const auto left = std::max(milliseconds(1), std::chrono::duration_cast<milliseconds>(
                                                    deadline - std::chrono::steady_clock::now()));
    auto listed = list_tools(**channel, meta_adder(), m_settings, left);
    if (!listed) {
      return fail(ErrorKind::tool, fmt::format("MCP server `{}`: {}", m_settings.name,
                                               with_stderr(listed.error().message, **channel)));
    }
    const std::lock_guard lock(m_mutex);
    m_status.tools = std::move(listed->tools);
    m_param_headers = std::move(listed->param_headers);
    m_status.state = ServerState::running;
    return channel;
  }

  static std::string with_stderr(const std::string& message, const RpcChannel& channel) {
    const std::string last = channel.last_stderr();
    return last.empty() ? message : fmt::format("{}; its last stderr line: {}", message, last);
  }

  Era era() const {
    const std::lock_guard lock(m_mutex);
    return m_status.era;
  }

  // The current era wants its version, who is asking and what it can do on every request.
  Json with_meta(Json params) const {
    const std::lock_guard lock(m_mutex);
    if (m_status.era == Era::modern) {
      Json& meta = params["_meta"];
      if (!meta.is_object()) {
        meta = Json::object();
      }
      meta.update(modern_meta(m_status.protocol_version));
    }
    return params;
  }

  std::function<Json(Json)> meta_adder() const {
    return [this](Json params) { return with_meta(std::move(params)); };
  }

  McpServerSettings m_settings;
  ClientOptions m_options;
  BlockingWaiter m_blocking;
  std::atomic<bool> m_tools_stale{false};
  // Guards the four below; never held while waiting on the server.
  mutable std::mutex m_mutex;
  std::shared_ptr<RpcChannel> m_channel;
  std::shared_ptr<RestartGate> m_restarting; // set while one caller restarts the server
  // The x-mcp-header declarations of the tools listed, by tool.
  std::map<std::string, std::vector<ParamHeader>> m_param_headers;
  ServerStatus m_status;
};

} // namespace

Result<std::unique_ptr<Client>> Client::connect(const McpServerSettings& settings,
                                                const ClientOptions& options) {
  const std::string where =
      settings.origin.empty() ? std::string() : fmt::format(" ({})", settings.origin);
  if (settings.command.empty() == settings.url.empty()) {
    return fail(ErrorKind::config, fmt::format("MCP server `{}`{}: give either `command` or `url`",
                                               settings.name, where));
  }
  auto client = std::make_unique<McpClient>(settings, options);
  TRY(client->start());
  return std::unique_ptr<Client>(std::move(client));
}

} // namespace ralph::mcp
