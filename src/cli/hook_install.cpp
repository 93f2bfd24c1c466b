#include "cli/hook_install.h"

#include "cli/settings_file.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace ralph::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

const char* event_of(HookAgent agent) {
  return agent == HookAgent::gemini ? "AfterAgent" : "Stop";
}

// Claude and Codex count a hook's timeout in seconds, Gemini in milliseconds: ten minutes each,
// so a slow test suite is not cut off.
int timeout_of(HookAgent agent) {
  return agent == HookAgent::gemini ? 600000 : 600;
}

// Whether `command` runs ralph's hook for `agent`: "…ralph hook --agent NAME", perhaps quoted,
// perhaps with flags after it (a person may add --verify-cmd to the installed line).
bool is_ralph_hook(const std::string& command, HookAgent agent) {
  const std::string tail = fmt::format(" hook --agent {}", to_string(agent));
  for (std::size_t at = command.find(tail); at != std::string::npos;
       at = command.find(tail, at + 1)) {
    const std::size_t end = at + tail.size();
    if (end != command.size() && command[end] != ' ') {
      continue;
    }
    std::string program = command.substr(0, at);
    if (!program.empty() && (program.back() == '\'' || program.back() == '"')) {
      program.pop_back();
    }
    if (program == "ralph" || (program.size() > 6 && program.ends_with("/ralph"))) {
      return true;
    }
  }
  return false;
}

bool handler_is_ours(const Json& handler, HookAgent agent) {
  if (!handler.is_object()) {
    return false;
  }
  const auto command = handler.find("command");
  return command != handler.end() && command->is_string() &&
         is_ralph_hook(command->get<std::string>(), agent);
}

// The event's list of hook groups, checked for the shape every CLI reads; null when absent.
Result<Json*> event_groups(Json& settings, const fs::path& file, HookAgent agent) {
  const auto hooks = settings.find("hooks");
  if (hooks == settings.end()) {
    return nullptr;
  }
  if (!hooks->is_object()) {
    return fail(
        ErrorKind::config,
        fmt::format("{}: \"hooks\" is not an object; it was left as it was", file.string()));
  }
  if (!hooks->contains(event_of(agent))) {
    return nullptr;
  }
  Json& groups = (*hooks)[event_of(agent)];
  if (!groups.is_array()) {
    return fail(ErrorKind::config,
                fmt::format("{}: \"hooks.{}\" is not a list; it was left as it was", file.string(),
                            event_of(agent)));
  }
  return &groups;
}

} // namespace

fs::path hook_settings_file(HookAgent agent, HookScope scope, const fs::path& project,
                            const fs::path& home, const fs::path& codex_home) {
  if (agent == HookAgent::codex && scope == HookScope::user && !codex_home.empty()) {
    return codex_home / "hooks.json";
  }
  const fs::path base = scope == HookScope::project ? project : home;
  switch (agent) {
  case HookAgent::claude:
    return base / ".claude" / "settings.json";
  case HookAgent::codex:
    return base / ".codex" / "hooks.json";
  case HookAgent::gemini:
    return base / ".gemini" / "settings.json";
  }
  return {};
}

std::string hook_command_line(const fs::path& ralph, HookAgent agent) {
  std::string path = ralph.string();
  const bool plain = path.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                            "0123456789/._-+") == std::string::npos;
  if (!plain) {
    path = shell_quote(path);
  }
  return fmt::format("{} hook --agent {}", path, to_string(agent));
}

Result<bool> install_hook(const fs::path& file, HookAgent agent, const std::string& command) {
  TRY_ASSIGN(Json settings, read_json_settings(file));
  TRY_ASSIGN(Json * groups, event_groups(settings, file, agent));
  if (groups != nullptr) {
    for (const Json& group : *groups) {
      if (!group.is_object() || !group.contains("hooks") || !group["hooks"].is_array()) {
        continue;
      }
      for (const Json& handler : group["hooks"]) {
        if (handler_is_ours(handler, agent)) {
          return false;
        }
      }
    }
  }
  Json handler = Json::object();
  handler["type"] = "command";
  handler["command"] = command;
  handler["timeout"] = timeout_of(agent);
  Json group = Json::object();
  group["hooks"] = Json::array({handler});
  settings["hooks"][event_of(agent)].push_back(group);
  TRY(write_atomically(file, settings.dump(2) + "\n"));
  return true;
}

Result<bool> uninstall_hook(const fs::path& file, HookAgent agent) {
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    return false;
  }
  TRY_ASSIGN(Json settings, read_json_settings(file));
  TRY_ASSIGN(Json * groups, event_groups(settings, file, agent));
  if (groups == nullptr) {
    return false;
  }
  bool changed = false;
  Json kept = Json::array();
  for (Json& group : *groups) {
    if (!group.is_object() || !group.contains("hooks") || !group["hooks"].is_array()) {
      kept.push_back(group);
      continue;
    }
    Json handlers = Json::array();
    for (Json& handler : group["hooks"]) {
      if (handler_is_ours(handler, agent)) {
        changed = true;
      } else {
        handlers.push_back(handler);
      }
    }
    // A group left with no handler was ralph's alone.
    if (handlers.empty() && !group["hooks"].empty()) {
      continue;
    }
    group["hooks"] = std::move(handlers);
    kept.push_back(group);
  }
  if (!changed) {
    return false;
  }
  Json& hooks = settings["hooks"];
  if (kept.empty()) {
    hooks.erase(event_of(agent));
    if (hooks.empty()) {
      settings.erase("hooks");
    }
  } else {
    hooks[event_of(agent)] = std::move(kept);
  }
  if (settings.empty()) {
    // Nothing but ralph's hook was in it: no file says the same as `{}`, and so does no folder
    // (`.codex/`, made by install) when the file was all it held.
    fs::remove(file, ec);
    if (ec) {
      return fail(ErrorKind::io, fmt::format("{}: cannot remove: {}", file.string(), ec.message()));
    }
    fs::remove(file.parent_path(), ec); // only when empty; a folder with more in it stays
    return true;
  }
  TRY(write_atomically(file, settings.dump(2) + "\n"));
  return true;
}

} // namespace ralph::cli
