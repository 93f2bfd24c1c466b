#pragma once

// `ralph mcp install|uninstall claude|codex|gemini`: ralph's MCP server (`ralph mcp serve`) in
// an agent CLI's MCP settings, added or removed without touching anything else there.

#include "cli/hook_install.h"
#include "cli/hook_protocol.h"

#include "ralph/core/error.h"

#include <filesystem>

namespace ralph::cli {

// The file that lists `agent`'s MCP servers: Claude Code's `.mcp.json` (project) or
// `~/.claude.json` (user), Codex's `.codex/config.toml` (user: under `codex_home` when it is not
// empty, else `~/.codex`), Gemini CLI's `.gemini/settings.json`.
std::filesystem::path mcp_settings_file(HookAgent agent, HookScope scope,
                                        const std::filesystem::path& project,
                                        const std::filesystem::path& home,
                                        const std::filesystem::path& codex_home = {});

// Adds the server `ralph` (`ralph mcp serve`) to `file` as `ralph` (JSON: `mcpServers.ralph`;
// Codex: a `[mcp_servers.ralph]` table appended to the text, so its comments and order stay),
// creating the file when missing, replacing it atomically. False when a `ralph` server is there
// already (left as it is). A file that does not parse, or whose `mcpServers` is not an object,
// is a config error naming it, and is left untouched.
Result<bool> install_mcp_server(const std::filesystem::path& file, HookAgent agent,
                                const std::filesystem::path& ralph);

// Removes the `ralph` server from `file`, nothing else. False when there was none (or no file).
Result<bool> uninstall_mcp_server(const std::filesystem::path& file, HookAgent agent);

} // namespace ralph::cli
