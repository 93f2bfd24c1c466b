#pragma once

#include "agent/cli_tool_calls.h"

#include "ralph/agent/cli_stream.h"

#include <nlohmann/json_fwd.hpp>

namespace ralph::agent {

// `claude -p --output-format stream-json --verbose`. The session comes from system/init; text and
// tool calls from the `assistant` lines (one content block per line); tool results from the
// `user` lines, matched by tool_use_id (Claude gives no exit code, only is_error); usage, cost
// and the verdict from the final `result` line, whose is_error is the failure flag. The usage on
// assistant lines is per API response and repeated on every block of it, so it is never summed.
// Subagent lines (parent_tool_use_id set) report their tool calls, which ran in the workspace,
// but not their text, which is the subagent's conversation and not the answer.
class ClaudeStream final : public CliStreamParser {
public:
  void parse_line(std::string_view line, std::vector<CliEvent>& out) override;
  void finish(std::vector<CliEvent>& out) override;

private:
  void on_assistant(const nlohmann::json& line, std::vector<CliEvent>& out);
  void on_user(const nlohmann::json& line, std::vector<CliEvent>& out);
  static void on_result(const nlohmann::json& line, std::vector<CliEvent>& out);

  OpenToolCalls m_calls;
};

} // namespace ralph::agent
