#include "cli/mcp_install.h"

#include "cli/mcp_command.h"
#include "cli/settings_file.h"

#include "ralph/core/toml_query.h"
#include "ralph/core/try.h"
#include "ralph/session/settings.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>

namespace ralph::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

const std::vector<std::string> k_toml_path = {"mcp_servers", "ralph"};

// A TOML basic string of `text`.
std::string toml_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

Result<bool> install_toml(const fs::path& file, const fs::path& ralph) {
  TRY_ASSIGN(const std::optional<std::string> old, read_settings_text(file));
  const std::string text = old.value_or("");
  TRY_ASSIGN(const bool present, toml_defines(text, file.string(), k_toml_path));
  if (present) {
    return false;
  }
  std::string updated = text;
  if (!updated.empty() && updated.back() != '\n') {
    updated += '\n';
  }
  if (!updated.empty()) {
    updated += '\n';
  }
  updated += fmt::format("[mcp_servers.ralph]\ncommand = {}\nargs = [\"mcp\", \"serve\"]\n",
                         toml_string(ralph.string()));
  const Result<bool> added = toml_defines(updated, file.string(), k_toml_path);
  if (!added || !*added) {
    return fail(ErrorKind::config,
                fmt::format("{}: a [mcp_servers.ralph] table cannot be added to it ({}); it was "
                            "left as it was",
                            file.string(), added ? "it would not be read" : added.error().message));
  }
  TRY(write_atomically(file, updated));
  return true;
}

// The lines of `text` without the [mcp_servers.ralph] table and its subtables.
std::string without_ralph_table(const std::string& text) {
  static const std::regex k_header(R"(^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$)");
  static const std::regex k_ours(R"(^mcp_servers\s*\.\s*("ralph"|'ralph'|ralph)(\s*\..*)?$)");
  std::istringstream in(text);
  std::vector<std::string> out;
  bool ours = false;
  for (std::string line; std::getline(in, line);) {
    std::smatch header;
    if (std::regex_match(line, header, k_header)) {
      const bool was = ours;
      ours = std::regex_match(header[1].str(), k_ours);
      if (ours) {
        while (!out.empty() && out.back().find_first_not_of(" \t\r") == std::string::npos) {
          out.pop_back(); // the blank lines that set the table apart go with it
        }
      } else if (was && !out.empty()) {
        out.emplace_back();
      }
    }
    if (!ours) {
      out.push_back(line);
    }
  }
  std::string result;
  for (const std::string& line : out) {
    result += line + "\n";
  }
  return result;
}

Result<bool> uninstall_toml(const fs::path& file) {
  TRY_ASSIGN(const std::optional<std::string> old, read_settings_text(file));
  if (!old) {
    return false;
  }
  TRY_ASSIGN(const bool present, toml_defines(*old, file.string(), k_toml_path));
  if (!present) {
    return false;
  }
  const std::string updated = without_ralph_table(*old);
  const Result<bool> still = toml_defines(updated, file.string(), k_toml_path);
  if (!still || *still) {
    return fail(ErrorKind::config,
                fmt::format("{}: ralph's server is not a [mcp_servers.ralph] table there (an "
                            "inline table or dotted keys?); remove it by hand: the file was left "
                            "as it was",
                            file.string()));
  }
  TRY(write_atomically(file, updated));
  return true;
}

Json server_entry(HookAgent agent, const fs::path& ralph) {
  Json entry = Json::object();
  if (agent == HookAgent::claude) {
    entry["type"] = "stdio";
  }
  entry["command"] = ralph.string();
  entry["args"] = Json::array({"mcp", "serve"});
  return entry;
}

Result<Json*> servers_of(Json& settings, const fs::path& file) {
  const auto servers = settings.find("mcpServers");
  if (servers == settings.end()) {
    return nullptr;
  }
  if (!servers->is_object()) {
    return fail(ErrorKind::config, fmt::format("{}: \"mcpServers\" is not an object; it was left "
                                               "as it was",
                                               file.string()));
  }
  return &*servers;
}

} // namespace

fs::path mcp_settings_file(HookAgent agent, HookScope scope, const fs::path& project,
                           const fs::path& home, const fs::path& codex_home) {
  const bool user = scope == HookScope::user;
  switch (agent) {
  case HookAgent::claude:
    return user ? home / ".claude.json" : project / ".mcp.json";
  case HookAgent::codex:
    if (user) {
      return (codex_home.empty() ? home / ".codex" : codex_home) / "config.toml";
    }
    return project / ".codex" / "config.toml";
  case HookAgent::gemini:
    return (user ? home : project) / ".gemini" / "settings.json";
  }
  return {};
}

Result<bool> install_mcp_server(const fs::path& file, HookAgent agent, const fs::path& ralph) {
  if (agent == HookAgent::codex) {
    return install_toml(file, ralph);
  }
  TRY_ASSIGN(Json settings, read_json_settings(file));
  TRY_ASSIGN(Json * servers, servers_of(settings, file));
  if (servers != nullptr && servers->contains("ralph")) {
    return false;
  }
  if (servers == nullptr) {
    settings["mcpServers"] = Json::object();
    servers = &settings["mcpServers"];
  }
  (*servers)["ralph"] = server_entry(agent, ralph);
  TRY(write_atomically(file, settings.dump(2) + "\n"));
  return true;
}

Result<bool> uninstall_mcp_server(const fs::path& file, HookAgent agent) {
  if (agent == HookAgent::codex) {
    return uninstall_toml(file);
  }
  TRY_ASSIGN(const std::optional<std::string> text, read_settings_text(file));
  if (!text) {
    return false;
  }
  TRY_ASSIGN(Json settings, read_json_settings(file));
  TRY_ASSIGN(Json * servers, servers_of(settings, file));
  if (servers == nullptr || servers->erase("ralph") == 0) {
    return false;
  }
  TRY(write_atomically(file, settings.dump(2) + "\n"));
  return true;
}

Result<int> mcp_install_command(const RunArgs& args, const McpArgs& mcp, bool install) {
  const char* verb = install ? "install" : "uninstall";
  const std::optional<HookAgent> agent = value_of(k_hook_agent_names, mcp.target);
  if (!agent) {
    return fail(ErrorKind::usage, fmt::format("ralph mcp {}: unknown agent '{}'; expected "
                                              "claude, codex or gemini",
                                              verb, mcp.target));
  }
  if (mcp.user && mcp.project) {
    return fail(ErrorKind::usage,
                fmt::format("ralph mcp {}: --user and --project: choose one", verb));
  }
  const HookScope scope = mcp.user ? HookScope::user : HookScope::project;
  const char* home = std::getenv("HOME");
  fs::path project;
  if (scope == HookScope::project) {
    TRY_ASSIGN(project, session::resolve_workspace(args.workspace));
  } else if (home == nullptr || *home == '\0') {
    return fail(ErrorKind::usage, "--user: HOME is not set");
  }
  const char* codex_home = std::getenv("CODEX_HOME");
  const fs::path file = mcp_settings_file(*agent, scope, project, home == nullptr ? "" : home,
                                          codex_home == nullptr ? "" : codex_home);
  if (!install) {
    TRY_ASSIGN(const bool removed, uninstall_mcp_server(file, *agent));
    std::printf("%s\n", (removed ? "removed ralph's MCP server from " + file.string()
                                 : "no ralph MCP server in " + file.string())
                            .c_str());
    return 0;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    return fail(ErrorKind::io, fmt::format("cannot find ralph's own path: {}", ec.message()));
  }
  TRY_ASSIGN(const bool added, install_mcp_server(file, *agent, self));
  if (!added) {
    std::printf("a ralph MCP server is already in %s (left as it is)\n", file.string().c_str());
    return 0;
  }
  std::printf("added to %s: ralph (%s mcp serve)\n", file.string().c_str(), self.c_str());
  return 0;
}

} // namespace ralph::cli
