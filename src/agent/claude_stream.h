#pragma once

#include "agent/cli_tool_calls.h"

#include "ralph/agent/cli_stream.h"

#include <nlohmann/json_fwd.hpp>

#include <chrono>
#include <optional>

namespace ralph::agent {

// `claude -p --output-format stream-json --verbose`. The session comes from system/init; text and
// tool calls from the `assistant` lines (one content block per line); tool results from the
// `user` lines, matched by tool_use_id (Claude gives no exit-code field: a Bash result's exit code
// is read from is_error and its text, as the CLI sets them); usage, cost and the verdict from the
// final `result` line, whose is_error is the failure flag. The usage on assistant lines is per API
// response and repeated on every block of it, so it is never summed. Subagent lines
// (parent_tool_use_id set) report their tool calls, which ran in the workspace, but not their text,
// which is the subagent's conversation and not the answer.
class ClaudeStream final : public CliStreamParser {
public:
  void parse_line(std::string_view line, std::vector<CliEvent>& out) override;
  void finish(std::vector<CliEvent>& out) override;

private:
  void on_assistant(const nlohmann::json& line, std::vector<CliEvent>& out);
  void on_user(const nlohmann::json& line, std::vector<CliEvent>& out);
  void on_result(const nlohmann::json& line, std::vector<CliEvent>& out) const;

  OpenToolCalls m_calls;
  // When the plan's usage limit resets, once a rate_limit_event or an assistant line said it was
  // hit.
  std::optional<std::chrono::system_clock::time_point> m_limit_resets_at;
};

} // namespace ralph::agent
