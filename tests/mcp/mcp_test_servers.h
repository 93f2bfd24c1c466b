#pragma once

// Where the MCP servers the client tests drive are: the scripted fake under fixtures/, and the
// real ones from npm (pinned in tests/mcp_packages/package.json) under $RALPH_MCP_TESTS_DIR, by
// default the source tree's tests/mcp_packages/node_modules. A missing npm server skips its test,
// or fails it when $RALPH_REQUIRE_AGENT_CLIS is "1" (CI).

#include "ralph/core/settings.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ralph::testing {

inline std::filesystem::path mcp_tests_dir() {
  const char* dir = std::getenv("RALPH_MCP_TESTS_DIR");
  return dir != nullptr && *dir != '\0'
             ? std::filesystem::path(dir)
             : std::filesystem::path(RALPH_SOURCE_DIR) / "tests/mcp_packages/node_modules";
}

inline bool mcp_servers_required() {
  const char* value = std::getenv("RALPH_REQUIRE_AGENT_CLIS");
  return value != nullptr && std::string(value) == "1";
}

// `.bin/NAME` under mcp_tests_dir(), or nullopt.
inline std::optional<std::filesystem::path> find_mcp_bin(const std::string& name) {
  const auto path = mcp_tests_dir() / ".bin" / name;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    return path;
  }
  return std::nullopt;
}

// Settings for the scripted fake server with `options` (see fixtures/scripted_server.py).
inline McpServerSettings scripted_server(std::vector<std::string> options = {}) {
  McpServerSettings settings;
  settings.name = "scripted";
  settings.command = "python3";
  settings.args.push_back(std::string(RALPH_SOURCE_DIR) + "/tests/mcp/fixtures/scripted_server.py");
  settings.args.insert(settings.args.end(), options.begin(), options.end());
  settings.startup_timeout = std::chrono::seconds(20);
  settings.tool_timeout = std::chrono::seconds(20);
  return settings;
}

} // namespace ralph::testing

// Skips the test (or fails it when servers are required) when `var` (an optional path) is empty.
#define RALPH_REQUIRE_MCP_BIN(var, name)                                                           \
  const auto var = ::ralph::testing::find_mcp_bin(name);                                           \
  if (!var) {                                                                                      \
    if (::ralph::testing::mcp_servers_required()) {                                                \
      FAIL() << name << " is not in " << ::ralph::testing::mcp_tests_dir()                         \
             << "/.bin (RALPH_REQUIRE_AGENT_CLIS=1)";                                              \
    }                                                                                              \
    GTEST_SKIP() << name << " is not in " << ::ralph::testing::mcp_tests_dir()                     \
                 << "/.bin; set RALPH_MCP_TESTS_DIR or install tests/mcp";                         \
  }
