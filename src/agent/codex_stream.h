#pragma once

#include "agent/cli_tool_calls.h"

#include "ralph/agent/cli_stream.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace ralph::agent {

// `codex exec --json`. thread.started names the session; items report the work: a
// command_execution is the tool "shell" with arguments {"command": …} and ends with its
// aggregated output and exit code; a file_change is the tool "file_change" with arguments
// {"changes": […]}; an mcp_tool_call is "<server>__<tool>"; agent_message is text, the last one
// the answer; an `error` item or line is a notice (Codex reports retried errors too).
// turn.completed gives usage, a running total of the whole thread (thread_total), and success;
// turn.failed is the failure. Sept-2025 spellings (`item_type`, `assistant_message`) are read too.
class CodexStream final : public CliStreamParser {
public:
  void parse_line(std::string_view line, std::vector<CliEvent>& out) override;
  void finish(std::vector<CliEvent>& out) override;

private:
  void on_item(const nlohmann::json& item, bool completed, std::vector<CliEvent>& out);

  OpenToolCalls m_calls;
  std::string m_answer;
};

} // namespace ralph::agent
