#pragma once

// `ralph hook install|uninstall claude|codex|gemini`: ralph's entry in the agent CLI's settings
// file, added or removed without touching anything else in it.

#include "cli/hook_protocol.h"

#include "ralph/core/error.h"

#include <filesystem>
#include <string>

namespace ralph::cli {

enum class HookScope { project, user };

// The settings file that holds `agent`'s hooks: `.claude/settings.json`, `.codex/hooks.json` or
// `.gemini/settings.json` under `project` or `home` (Codex's user file under `codex_home` when
// that is not empty).
std::filesystem::path hook_settings_file(HookAgent agent, HookScope scope,
                                         const std::filesystem::path& project,
                                         const std::filesystem::path& home,
                                         const std::filesystem::path& codex_home = {});

// The command the agent runs: `ralph` (shell-quoted when it must be) `hook --agent NAME`.
std::string hook_command_line(const std::filesystem::path& ralph, HookAgent agent);

// Adds a Stop (Gemini: AfterAgent) hook running `command` to `file`, creating it (and its
// folder) when missing. Every other key, hook and the order of keys stay as they were; the file
// is replaced atomically. True when it changed; false when a ralph hook for `agent` is there
// already. A file that is not a JSON object of the expected shape is a config error naming it,
// and is left untouched.
Result<bool> install_hook(const std::filesystem::path& file, HookAgent agent,
                          const std::string& command);

// Removes ralph's hooks for `agent` from `file` (and the groups and event lists they leave
// empty), nothing else. True when it changed; false when there was none (or no file).
Result<bool> uninstall_hook(const std::filesystem::path& file, HookAgent agent);

} // namespace ralph::cli
