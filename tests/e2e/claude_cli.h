#pragma once

// One `claude -p` run of the real Claude Code CLI with its stream-json output (agent_cli_env.h
// sets up its private home against the fake provider server).

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ralph::testing {

struct ClaudeRun {
  int exit_code = -1;
  std::string out; // stream-json lines
  std::string err;
  std::vector<nlohmann::json> events; // the lines of `out` that parse
};

// Runs `claude -p PROMPT --output-format stream-json --verbose --permission-mode
// bypassPermissions` in `cwd` with stdin from /dev/null, within three minutes.
ClaudeRun run_claude(const std::filesystem::path& claude, const std::filesystem::path& cwd,
                     const std::string& prompt,
                     const std::vector<std::pair<std::string, std::string>>& env);

} // namespace ralph::testing
