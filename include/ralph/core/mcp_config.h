#pragma once

#include "ralph/core/error.h"
#include "ralph/core/settings.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace ralph {

// What a session record holds instead of an `env` or `headers` value written out in a file: it
// may be a secret. A server that needs it cannot start again from the record alone.
inline constexpr std::string_view k_unrecorded_value = "<not recorded>";

// A mistake in one server's declaration: the server, the field ("" for the whole entry) and why.
struct McpConfigProblem {
  std::string server;
  std::string field;
  std::string message;
};

// Servers in ralph's form, `{"NAME": {"command": ..., "args": [...], ...}}` with Codex's key
// names, as `[mcp.servers]` reads (TOML made JSON), or an array of such objects each with its
// "name", as a session record writes them (in their order). Each replaces a
// server of its name in `into`, or is added after the others; `origin` says where it was
// declared. On failure the first problem; `into` may then be partly updated.
std::optional<McpConfigProblem> apply_mcp_servers(McpSettings& into, const nlohmann::json& table,
                                                  const std::string& origin);

// The servers of a Claude Code `.mcp.json` text (`{"mcpServers": {...}}`: type stdio or http,
// command, args, env, url, headers), added to `into` unless a server of that name is declared
// already: ralph's own configuration wins. `${VAR}` forms stay as written (expanded when the
// server starts). A config error names `source` and the server.
Result<void> apply_mcp_json(McpSettings& into, std::string_view text, const std::string& source);

// The servers as an array in the form apply_mcp_servers reads, for the session record: an `env` or
// `headers` value that is not made only of `${VAR}` references is k_unrecorded_value.
nlohmann::json mcp_servers_json(const McpSettings& settings);

// `text` with `${VAR}` and `${VAR:-default}` replaced through `lookup` (nullptr: unset). An
// unset variable without a default stays as written, as Claude Code leaves it.
std::string expand_variables(std::string_view text,
                             const std::function<const char*(const char*)>& lookup);

} // namespace ralph
