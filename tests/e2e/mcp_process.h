#pragma once

// MCP servers and clients for the end-to-end tests: `ralph mcp serve` on pipes, spoken to one
// JSON-RPC line at a time, and the official inspector's CLI from the pinned npm packages.

#include "ralph_process.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace ralph::testing {

// `ralph mcp serve ARGS` in `workspace` with its stdin and stdout on pipes; stderr to a file.
class McpStdioProcess {
public:
  McpStdioProcess(const std::filesystem::path& workspace, const std::vector<std::string>& args = {},
                  const std::map<std::string, std::string>& env = {});
  ~McpStdioProcess();
  McpStdioProcess(const McpStdioProcess&) = delete;
  McpStdioProcess& operator=(const McpStdioProcess&) = delete;

  // Writes `line` and a newline (raw: malformed input is the point of some tests).
  void send_line(const std::string& line);
  void send(const nlohmann::json& message) { send_line(message.dump()); }
  // The next line on stdout, or nullopt when none came within `timeout` or stdout ended.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout);
  // The next message that is a response (skipping notifications, which go to `notifications`).
  std::optional<nlohmann::json> read_response(std::chrono::milliseconds timeout);
  void close_stdin();
  // Waits for the end: the exit code (128 + signal when killed).
  int wait();
  std::string err() const;

  std::vector<nlohmann::json> notifications;

private:
  pid_t m_pid = -1;
  int m_in = -1;
  int m_out = -1;
  std::string m_buffer;
  std::filesystem::path m_err;
  std::optional<int> m_exit;
};

// Where the pinned MCP test packages are: $RALPH_MCP_TESTS_DIR, else the source tree's
// tests/mcp_packages/node_modules.
std::filesystem::path mcp_tests_dir();

// The inspector's CLI, or nullopt when it is not installed (the caller skips, or fails when
// RALPH_REQUIRE_AGENT_CLIS=1).
std::optional<std::filesystem::path> find_inspector();

// Runs `mcp-inspector --cli ARGS -q`-style: the CLI's output (stdout) parsed as JSON, or a test
// failure with what it printed.
nlohmann::json run_inspector(const std::filesystem::path& inspector,
                             const std::vector<std::string>& args,
                             const std::filesystem::path& cwd);

} // namespace ralph::testing
