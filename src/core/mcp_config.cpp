// `[mcp.servers.NAME]` and `.mcp.json`: each server's fields checked when the file is read, so a
// mistake is a config error naming the server and field, never a server that fails to start
// halfway through a run.
#include "ralph/core/mcp_config.h"

#include "config_keys.h"

#include "ralph/core/json.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ralph {
namespace {

constexpr std::string_view k_fields =
    "command, args, env, env_vars, cwd, url, bearer_token_env_var, http_headers, enabled, "
    "required, shareable, startup_timeout_sec, tool_timeout_sec, enabled_tools, disabled_tools";

// Server names become part of tool names (`mcp__NAME__TOOL`), which providers restrict.
bool is_server_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '_' || c == '-';
  });
}

std::optional<std::map<std::string, std::string>> string_table(const nlohmann::json& value) {
  if (!value.is_object()) {
    return std::nullopt;
  }
  std::map<std::string, std::string> out;
  for (const auto& [name, item] : value.items()) {
    if (!item.is_string()) {
      return std::nullopt;
    }
    out[name] = item.get<std::string>();
  }
  return out;
}

std::optional<Duration> seconds(const nlohmann::json& value, double min, double max) {
  if (!value.is_number()) {
    return std::nullopt;
  }
  const double s = value.get<double>();
  if (!std::isfinite(s) || s < min || s > max) {
    return std::nullopt;
  }
  return Duration(std::llround(s * 1000.0));
}

std::optional<std::string> read_field(McpServerSettings& server, const std::string& field,
                                      const nlohmann::json& value) {
  const auto text = [&](std::string& into) -> std::optional<std::string> {
    if (!value.is_string()) {
      return std::string("expected a string");
    }
    into = value.get<std::string>();
    return std::nullopt;
  };
  const auto flag = [&](bool& into) -> std::optional<std::string> {
    if (!value.is_boolean()) {
      return std::string("expected true or false");
    }
    into = value.get<bool>();
    return std::nullopt;
  };
  const auto list = [&](std::vector<std::string>& into) -> std::optional<std::string> {
    auto items = config_detail::json_strings(value);
    if (!items) {
      return std::string("expected a list of strings");
    }
    into = std::move(*items);
    return std::nullopt;
  };
  const auto table = [&](std::map<std::string, std::string>& into) -> std::optional<std::string> {
    auto items = string_table(value);
    if (!items) {
      return std::string("expected a table of strings");
    }
    into = std::move(*items);
    return std::nullopt;
  };
  if (field == "command") {
    return text(server.command);
  }
  if (field == "args") {
    return list(server.args);
  }
  if (field == "env") {
    return table(server.env);
  }
  if (field == "env_vars") {
    if (auto problem = list(server.env_vars)) {
      return problem;
    }
    const auto bad = std::find_if_not(
        server.env_vars.begin(), server.env_vars.end(),
        [](const std::string& name) { return config_detail::is_variable_name(name); });
    if (bad != server.env_vars.end()) {
      return fmt::format("'{}' is not a variable name", *bad);
    }
    return std::nullopt;
  }
  if (field == "cwd") {
    return text(server.cwd);
  }
  if (field == "url") {
    if (auto problem = text(server.url)) {
      return problem;
    }
    const std::string& url = server.url;
    if (!url.starts_with("http://") && !url.starts_with("https://") && !url.starts_with("${")) {
      return std::string("expected an http:// or https:// URL");
    }
    return std::nullopt;
  }
  if (field == "bearer_token_env_var") {
    if (!value.is_string() || !config_detail::is_variable_name(value.get<std::string>())) {
      return std::string("expected the name of an environment variable holding the token, not "
                         "the token itself");
    }
    server.bearer_token_env_var = value.get<std::string>();
    return std::nullopt;
  }
  if (field == "http_headers" || field == "headers") {
    return table(server.headers);
  }
  if (field == "enabled") {
    return flag(server.enabled);
  }
  if (field == "required") {
    return flag(server.required);
  }
  if (field == "shareable") {
    return flag(server.shareable);
  }
  if (field == "startup_timeout_sec") {
    const auto d = seconds(value, 0.1, 600);
    if (!d) {
      return std::string("expected seconds from 0.1 to 600");
    }
    server.startup_timeout = *d;
    return std::nullopt;
  }
  if (field == "tool_timeout_sec") {
    const auto d = seconds(value, 1, 86400);
    if (!d) {
      return std::string("expected seconds from 1 to 86400");
    }
    server.tool_timeout = *d;
    return std::nullopt;
  }
  if (field == "enabled_tools") {
    return list(server.enabled_tools);
  }
  if (field == "disabled_tools") {
    return list(server.disabled_tools);
  }
  return fmt::format("unknown field (a server has {})", k_fields);
}

std::optional<McpConfigProblem> parse_server(McpServerSettings& server,
                                             const nlohmann::json& fields) {
  if (!fields.is_object()) {
    return McpConfigProblem{.server = server.name, .field = "", .message = "expected a table"};
  }
  for (const auto& [field, value] : fields.items()) {
    if (auto problem = read_field(server, field, value)) {
      return McpConfigProblem{.server = server.name, .field = field, .message = *problem};
    }
  }
  if (server.command.empty() == server.url.empty()) {
    return McpConfigProblem{.server = server.name,
                            .field = "",
                            .message = "give either command (a stdio server) or url (a "
                                       "streamable HTTP one)"};
  }
  const bool http_only = !server.bearer_token_env_var.empty() || !server.headers.empty();
  if (!server.command.empty() && http_only) {
    return McpConfigProblem{.server = server.name,
                            .field =
                                server.headers.empty() ? "bearer_token_env_var" : "http_headers",
                            .message = "is for a url server only"};
  }
  const bool stdio_only = !server.args.empty() || !server.env.empty() || !server.env_vars.empty() ||
                          !server.cwd.empty();
  if (!server.url.empty() && stdio_only) {
    return McpConfigProblem{.server = server.name,
                            .field = "",
                            .message = "args, env, env_vars and cwd are for a command server only"};
  }
  return std::nullopt;
}

void put(McpSettings& into, McpServerSettings server) {
  const auto same = std::find_if(into.servers.begin(), into.servers.end(),
                                 [&](const McpServerSettings& s) { return s.name == server.name; });
  if (same != into.servers.end()) {
    *same = std::move(server);
    return;
  }
  into.servers.push_back(std::move(server));
}

// Only `${VAR}` references: what expands from the environment when the server starts, no secret.
bool only_references(std::string_view text) {
  while (!text.empty()) {
    if (!text.starts_with("${")) {
      return false;
    }
    const auto end = text.find('}');
    if (end == std::string_view::npos) {
      return false;
    }
    text.remove_prefix(end + 1);
  }
  return true;
}

} // namespace

std::optional<McpConfigProblem> apply_mcp_servers(McpSettings& into, const nlohmann::json& table,
                                                  const std::string& origin) {
  // A record lists them in an array (JSON objects forget the order of their keys).
  if (table.is_array()) {
    for (const nlohmann::json& entry : table) {
      const std::string name(string_member(entry, "name"));
      nlohmann::json fields = entry;
      if (fields.is_object()) {
        fields.erase("name");
      }
      if (auto problem = apply_mcp_servers(into, nlohmann::json{{name, fields}}, origin)) {
        return problem;
      }
    }
    return std::nullopt;
  }
  if (!table.is_object()) {
    return McpConfigProblem{.server = "",
                            .field = "",
                            .message = "expected tables [mcp.servers.NAME], each with command "
                                       "or url"};
  }
  for (const auto& [name, fields] : table.items()) {
    McpServerSettings server;
    server.name = name;
    server.origin = origin;
    if (!is_server_name(name)) {
      return McpConfigProblem{.server = name,
                              .field = "",
                              .message = "a server's name is made of letters, digits, _ and -"};
    }
    if (auto problem = parse_server(server, fields)) {
      return problem;
    }
    put(into, std::move(server));
  }
  return std::nullopt;
}

Result<void> apply_mcp_json(McpSettings& into, std::string_view text, const std::string& source) {
  TRY_ASSIGN(const nlohmann::json parsed, parse_json(text, source));
  const nlohmann::json* servers = member(parsed, "mcpServers");
  if (servers == nullptr || !servers->is_object()) {
    return fail(ErrorKind::config,
                fmt::format("{}: expected an object with \"mcpServers\"", source));
  }
  for (const auto& item : servers->items()) {
    const std::string& name = item.key();
    const nlohmann::json& entry = item.value();
    const bool declared = std::any_of(into.servers.begin(), into.servers.end(),
                                      [&](const McpServerSettings& s) { return s.name == name; });
    if (declared) {
      continue;
    }
    McpServerSettings server;
    server.name = name;
    server.origin = source;
    std::string problem;
    if (!is_server_name(name)) {
      problem = "a server's name is made of letters, digits, _ and -";
    } else if (!entry.is_object()) {
      problem = "expected an object";
    } else {
      nlohmann::json fields = entry;
      const std::string type = std::string(string_member(entry, "type"));
      fields.erase("type");
      if (!type.empty() && type != "stdio" && type != "http") {
        problem = fmt::format("type '{}' is not supported (stdio or http; the old sse transport "
                              "is deprecated)",
                              type);
      } else if (auto bad = parse_server(server, fields)) {
        problem = bad->field.empty() ? bad->message : bad->field + ": " + bad->message;
      }
    }
    if (!problem.empty()) {
      return fail(ErrorKind::config, fmt::format("{}: mcpServers.{}: {}", source, name, problem));
    }
    into.servers.push_back(std::move(server));
  }
  return {};
}

nlohmann::json mcp_servers_json(const McpSettings& settings) {
  const auto masked = [](const std::map<std::string, std::string>& values) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, value] : values) {
      out[name] = only_references(value) ? value : std::string(k_unrecorded_value);
    }
    return out;
  };
  nlohmann::json out = nlohmann::json::array();
  for (const McpServerSettings& s : settings.servers) {
    nlohmann::json& entry = out.emplace_back(nlohmann::json::object());
    entry["name"] = s.name;
    if (!s.command.empty()) {
      entry["command"] = s.command;
      entry["args"] = s.args;
      entry["env"] = masked(s.env);
      entry["env_vars"] = s.env_vars;
      if (!s.cwd.empty()) {
        entry["cwd"] = s.cwd;
      }
    } else {
      entry["url"] = s.url;
      entry["http_headers"] = masked(s.headers);
      if (!s.bearer_token_env_var.empty()) {
        entry["bearer_token_env_var"] = s.bearer_token_env_var;
      }
    }
    entry["enabled"] = s.enabled;
    entry["required"] = s.required;
    entry["shareable"] = s.shareable;
    entry["startup_timeout_sec"] = static_cast<double>(s.startup_timeout.count()) / 1000.0;
    entry["tool_timeout_sec"] = static_cast<double>(s.tool_timeout.count()) / 1000.0;
    entry["enabled_tools"] = s.enabled_tools;
    entry["disabled_tools"] = s.disabled_tools;
  }
  return out;
}

std::string expand_variables(std::string_view text,
                             const std::function<const char*(const char*)>& lookup) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto start = text.find("${", at);
    if (start == std::string_view::npos) {
      break;
    }
    const auto end = text.find('}', start + 2);
    if (end == std::string_view::npos) {
      break;
    }
    out.append(text.substr(at, start - at));
    const std::string_view inside = text.substr(start + 2, end - start - 2);
    const auto dash = inside.find(":-");
    const std::string name(inside.substr(0, dash));
    const char* value = config_detail::is_variable_name(name) ? lookup(name.c_str()) : nullptr;
    if (value != nullptr && (dash == std::string_view::npos || *value != '\0')) {
      out += value;
    } else if (dash != std::string_view::npos && config_detail::is_variable_name(name)) {
      out.append(inside.substr(dash + 2));
    } else {
      out.append(text.substr(start, end - start + 1));
    }
    at = end + 1;
  }
  out.append(text.substr(at));
  return out;
}

} // namespace ralph
