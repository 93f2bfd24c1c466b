#include "cli/mcp_command.h"

#include "cli/requests.h"

#include "ralph/core/try.h"
#include "ralph/mcp/mcp_tool.h"
#include "ralph/session/mcp_servers.h"
#include "ralph/session/runtime.h"
#include "ralph/session/settings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace ralph::cli {
namespace {

const char* era_name(mcp::Era era) {
  switch (era) {
  case mcp::Era::legacy:
    return "legacy";
  case mcp::Era::modern:
    return "modern";
  case mcp::Era::unknown:
    break;
  }
  return "-";
}

const char* state_name(const session::McpServerReport& report) {
  if (!report.settings.enabled) {
    return "disabled";
  }
  switch (report.status.state) {
  case mcp::ServerState::running:
    return "running";
  case mcp::ServerState::failed:
    return "failed";
  case mcp::ServerState::stopped:
    break;
  }
  return "stopped";
}

// Where the server is: its command line or its URL.
std::string target_of(const McpServerSettings& server) {
  if (!server.url.empty()) {
    return server.url;
  }
  std::string line = server.command;
  for (const std::string& arg : server.args) {
    line += " " + arg;
  }
  return line;
}

nlohmann::json report_json(const session::McpServerReport& report) {
  const McpServerSettings& s = report.settings;
  const mcp::ServerStatus& status = report.status;
  nlohmann::json tools = nlohmann::json::array();
  for (const mcp::RemoteTool& tool : status.tools) {
    tools.push_back({{"name", tool.name},
                     {"model_name", mcp::model_tool_name(s.name, tool.name)},
                     {"description", tool.description}});
  }
  nlohmann::json out = {
      {"name", s.name},
      {"transport", status.transport},
      {"target", target_of(s)},
      {"origin", s.origin},
      {"enabled", s.enabled},
      {"required", s.required},
      {"shareable", s.shareable},
      {"state", state_name(report)},
      {"era", status.era == mcp::Era::unknown ? nullptr : nlohmann::json(era_name(status.era))},
      {"protocol_version", status.protocol_version},
      {"server", {{"name", status.server_name}, {"version", status.server_version}}},
      {"tools", std::move(tools)},
      {"last_error", status.last_error.empty() ? nullptr : nlohmann::json(status.last_error)}};
  return out;
}

std::string table_text(const std::vector<session::McpServerReport>& reports) {
  std::size_t width = 4;
  for (const auto& report : reports) {
    width = std::max(width, report.settings.name.size());
  }
  std::string out = fmt::format("{:<{}}  {:<9}  {:<8}  {:<6}  {:>5}  {}\n", "NAME", width,
                                "TRANSPORT", "STATE", "ERA", "TOOLS", "DECLARED IN");
  for (const auto& report : reports) {
    const bool running = report.status.state == mcp::ServerState::running;
    out += fmt::format("{:<{}}  {:<9}  {:<8}  {:<6}  {:>5}  {}\n", report.settings.name, width,
                       report.status.transport, state_name(report), era_name(report.status.era),
                       running ? std::to_string(report.status.tools.size()) : "-",
                       report.settings.origin);
    if (!report.status.last_error.empty()) {
      out += fmt::format("{:<{}}  last error: {}\n", "", width, report.status.last_error);
    }
  }
  return out;
}

std::string details_text(const std::vector<session::McpServerReport>& reports) {
  std::string out;
  for (const auto& report : reports) {
    const McpServerSettings& s = report.settings;
    const mcp::ServerStatus& status = report.status;
    out += fmt::format("{} ({}: {}; {})\n", s.name, status.transport, target_of(s), s.origin);
    if (status.state != mcp::ServerState::running) {
      out += fmt::format("  {}: {}\n", state_name(report),
                         status.last_error.empty() ? "not started" : status.last_error);
      continue;
    }
    out += fmt::format("  running: protocol {} ({} era), server {} {}\n", status.protocol_version,
                       era_name(status.era),
                       status.server_name.empty() ? "(unnamed)" : status.server_name,
                       status.server_version);
    out += fmt::format("  {} tool(s) offered to the agent:\n", status.tools.size());
    for (const mcp::RemoteTool& tool : status.tools) {
      out += fmt::format("    {}  {}\n", mcp::model_tool_name(s.name, tool.name),
                         tool.description.substr(0, tool.description.find('\n')));
    }
    if (!status.last_error.empty()) {
      out += fmt::format("  last error: {}\n", status.last_error);
    }
  }
  return out;
}

} // namespace

Result<int> mcp_list_command(const RunArgs& run, const McpArgs& mcp, bool check) {
  session::Runtime runtime;
  TRY_ASSIGN(const std::filesystem::path workspace, session::resolve_workspace(run.workspace));
  TRY_ASSIGN(const Config config, load_config(run, workspace, runtime.environment()));
  std::vector<McpServerSettings> servers;
  for (const std::string& name : mcp.names) {
    const auto found =
        std::find_if(config.mcp.servers.begin(), config.mcp.servers.end(),
                     [&](const McpServerSettings& server) { return server.name == name; });
    if (found == config.mcp.servers.end()) {
      std::vector<std::string> known;
      for (const McpServerSettings& server : config.mcp.servers) {
        known.push_back(server.name);
      }
      return fail(
          ErrorKind::usage,
          fmt::format("ralph mcp {}: no MCP server named '{}' ({})", check ? "check" : "list", name,
                      known.empty() ? std::string("none is configured")
                                    : fmt::format("configured: {}", fmt::join(known, ", "))));
    }
    servers.push_back(*found);
  }
  if (mcp.names.empty()) {
    servers = config.mcp.servers;
  }
  const std::vector<session::McpServerReport> reports =
      session::probe_mcp_servers(servers, workspace, runtime);
  const bool failed = std::any_of(reports.begin(), reports.end(), [](const auto& report) {
    return report.settings.enabled && report.status.state != mcp::ServerState::running;
  });
  std::string out;
  if (run.json) {
    nlohmann::json json = {{"servers", nlohmann::json::array()}};
    for (const auto& report : reports) {
      json["servers"].push_back(report_json(report));
    }
    out = json.dump() + "\n";
  } else if (reports.empty()) {
    out = "No MCP servers are configured: add [mcp.servers.NAME] to .ralph/config.toml (command "
          "or url), or a .mcp.json to the workspace.\n";
  } else {
    out = check ? details_text(reports) : table_text(reports);
  }
  // A server's error may quote its command line or URL, and with them a token.
  std::fputs(runtime.redactor().redact(out).c_str(), stdout);
  return check && failed ? 1 : 0;
}

} // namespace ralph::cli
