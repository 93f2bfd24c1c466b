#include "ralph/session/mcp_servers.h"

#include "ralph/core/mcp_config.h"
#include "ralph/core/try.h"
#include "ralph/mcp/mcp_tool.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <thread>
#include <unistd.h>

namespace ralph::session {
namespace {

// What tells one declaration from another: two sessions share a client only when everything
// that starts the server is the same, the values the record masks included (kept in memory only).
std::string declaration_key(const McpServerSettings& server) {
  McpSettings one;
  one.servers.push_back(server);
  nlohmann::json key = mcp_servers_json(one);
  key[0]["env"] = server.env;
  key[0]["http_headers"] = server.headers;
  return key.dump();
}

} // namespace

// One shared server: started once; those who ask while it starts wait for the end of a pipe,
// through their Waiter (a fiber parks), instead of on a lock.
struct SharedMcpClients::Entry {
  std::shared_ptr<mcp::Client> client; // set once started
  bool starting = true;
  int done_read = -1; // readable (closed) once starting is over
  int done_write = -1;

  Entry() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) == 0) {
      done_read = fds[0];
      done_write = fds[1];
    }
  }
  ~Entry() {
    close_write();
    if (done_read >= 0) {
      ::close(done_read);
    }
  }
  Entry(const Entry&) = delete;
  Entry& operator=(const Entry&) = delete;
  void close_write() {
    if (done_write >= 0) {
      ::close(done_write);
      done_write = -1;
    }
  }
};

Result<std::shared_ptr<mcp::Client>> SharedMcpClients::get(const McpServerSettings& settings,
                                                           const mcp::ClientOptions& options) {
  const std::string key = declaration_key(settings);
  for (;;) {
    std::shared_ptr<Entry> entry;
    bool mine = false;
    {
      std::lock_guard lock(m_mutex);
      auto& slot = m_entries[key];
      if (!slot) {
        slot = std::make_shared<Entry>();
        mine = true;
      } else if (!slot->starting) {
        return slot->client;
      }
      entry = slot;
    }
    if (mine) {
      // The client outlives the session (and the engine) that starts it: its own waits block,
      // its own requests use a libcurl of their own; each session's calls bring their Io.
      mcp::ClientOptions own = options;
      own.waiter = &m_blocking;
      own.make_transport = {};
      Result<std::unique_ptr<mcp::Client>> made = mcp::Client::connect(settings, own);
      std::lock_guard lock(m_mutex);
      entry->starting = false;
      entry->close_write();
      if (!made) {
        m_entries.erase(key); // the next session to ask tries again
        return tl::unexpected(made.error());
      }
      entry->client = std::move(*made);
      return entry->client;
    }
    // Another session starts it: wait until it is over, then look again.
    pollfd done{.fd = entry->done_read, .events = POLLIN, .revents = 0};
    Waiter& waiter = options.waiter != nullptr ? *options.waiter : m_blocking;
    while (waiter.poll(&done, 1, settings.startup_timeout + std::chrono::seconds(5)) < 0 &&
           errno == EINTR) {
    }
  }
}

Result<McpServerSettings> expand_mcp_server(const McpServerSettings& server,
                                            const Environment& env) {
  const auto lookup = [&env](const char* name) { return env.c_str(name); };
  const auto expand_table = [&](std::map<std::string, std::string>& values,
                                std::string_view field) -> Result<void> {
    for (auto& [name, value] : values) {
      if (value == k_unrecorded_value) {
        return fail(ErrorKind::config,
                    fmt::format("MCP server {}: {}.{} was written out in a file, so the session "
                                "record does not keep it (it may be a secret); give it as "
                                "${{VAR}} or in env_vars to resume with it",
                                server.name, field, name));
      }
      value = expand_variables(value, lookup);
    }
    return {};
  };
  McpServerSettings out = server;
  out.command = expand_variables(server.command, lookup);
  for (std::string& arg : out.args) {
    arg = expand_variables(arg, lookup);
  }
  TRY(expand_table(out.env, "env"));
  out.url = expand_variables(server.url, lookup);
  TRY(expand_table(out.headers, "http_headers"));
  return out;
}

mcp::ClientOptions mcp_client_options(const std::filesystem::path& workspace, engine::Io& io,
                                      const Environment& env) {
  return mcp::ClientOptions{
      .workspace = workspace,
      .waiter = &io.waiter(),
      .make_transport = [&io] { return io.make_transport(); },
      .getenv = [&env](const char* name) { return env.c_str(name); },
      .on_stderr = {},
  };
}

Result<McpConnections> connect_mcp_servers(const Config& config,
                                           const std::filesystem::path& workspace, engine::Io& io,
                                           Runtime& runtime) {
  const Environment& env = runtime.environment();
  SharedMcpClients* shared = &runtime.shared_mcp();
  McpConnections out;
  out.io = &io;
  const mcp::ClientOptions options = mcp_client_options(workspace, io, env);
  for (const McpServerSettings& declared : config.mcp.servers) {
    if (!declared.enabled) {
      continue;
    }
    TRY_ASSIGN(const McpServerSettings server, expand_mcp_server(declared, env));
    if (!server.url.empty()) {
      runtime.start_http();
    }
    Result<std::shared_ptr<mcp::Client>> client =
        server.shareable && shared != nullptr
            ? shared->get(server, options)
            : mcp::Client::connect(server, options).map([](std::unique_ptr<mcp::Client> made) {
                return std::shared_ptr<mcp::Client>(std::move(made));
              });
    if (!client) {
      const std::string why = fmt::format("MCP server {} ({}) did not start: {}", server.name,
                                          server.origin, client.error().message);
      if (server.required) {
        return fail(ErrorKind::config, why + " (it is required)");
      }
      out.warnings.push_back(why + "; the agent works without its tools");
      continue;
    }
    out.clients.push_back(std::move(*client));
    out.names.push_back(server.name);
  }
  return out;
}

std::vector<McpServerReport> probe_mcp_servers(const std::vector<McpServerSettings>& servers,
                                               const std::filesystem::path& workspace,
                                               Runtime& runtime) {
  std::vector<McpServerReport> reports(servers.size());
  std::vector<std::jthread> probes;
  for (std::size_t i = 0; i < servers.size(); ++i) {
    McpServerReport& report = reports[i];
    report.settings = servers[i];
    report.status.name = servers[i].name;
    report.status.transport = servers[i].url.empty() ? "stdio" : "http";
    if (!servers[i].enabled) {
      report.status.last_error = "disabled (enabled = false)";
      continue;
    }
    if (!servers[i].url.empty()) {
      runtime.start_http();
    }
    probes.emplace_back([&report, &workspace, &runtime] {
      engine::BlockingIo io;
      auto server = expand_mcp_server(report.settings, runtime.environment());
      if (!server) {
        report.status.state = mcp::ServerState::failed;
        report.status.last_error = server.error().message;
        return;
      }
      auto client =
          mcp::Client::connect(*server, mcp_client_options(workspace, io, runtime.environment()));
      if (!client) {
        report.status.state = mcp::ServerState::failed;
        report.status.last_error = client.error().message;
        return;
      }
      report.status = (*client)->status();
    });
  }
  probes.clear(); // joins
  return reports;
}

void add_mcp_tools(tools::Registry& registry, const McpConnections& servers,
                   std::size_t output_limit) {
  for (std::size_t i = 0; i < servers.clients.size(); ++i) {
    for (const mcp::RemoteTool& tool : servers.clients[i]->tools()) {
      registry.add(
          servers.io == nullptr
              ? mcp::make_mcp_tool(servers.clients[i], servers.names[i], tool, output_limit)
              : mcp::make_mcp_tool(servers.clients[i], servers.names[i], tool, output_limit,
                                   &servers.io->waiter(),
                                   [io = servers.io] { return io->make_transport(); }));
    }
  }
}

} // namespace ralph::session
