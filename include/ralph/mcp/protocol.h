#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>

namespace ralph::mcp {

// The protocol revisions ralph speaks, both ways: the current, stateless one (named in each
// request's `_meta`), and the older ones negotiated by `initialize`, newest first.
inline constexpr std::string_view k_modern_version = "2026-07-28";
inline constexpr std::string_view k_legacy_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};

// JSON-RPC's error codes, and MCP's own.
inline constexpr int k_parse_error = -32700;
inline constexpr int k_invalid_request = -32600;
inline constexpr int k_method_not_found = -32601;
inline constexpr int k_invalid_params = -32602;
inline constexpr int k_internal_error = -32603;
inline constexpr int k_header_mismatch = -32020; // 2026-07-28 HTTP: a header and the body differ
inline constexpr int k_unsupported_version = -32022; // 2026-07-28: with the versions supported

// A JSON-RPC error response on one line; `data` null: none.
std::string rpc_error_text(const nlohmann::json& id, int code, std::string_view message);
std::string rpc_error_text(const nlohmann::json& id, int code, std::string_view message,
                           const nlohmann::json& data);

} // namespace ralph::mcp
