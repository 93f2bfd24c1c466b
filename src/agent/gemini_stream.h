#pragma once

#include "agent/cli_tool_calls.h"

#include "ralph/agent/cli_stream.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace ralph::agent {

// `gemini -p -o stream-json`. init names the session and model; the first user `message` is the
// echoed prompt and is skipped; assistant messages are text (delta chunks when `delta` is set);
// tool_use/tool_result pair by tool_id (no exit code; status "error" fails the call); `error`
// events are notices (Gemini calls them non-fatal); `result` gives usage and the verdict
// (status "success"). The answer is the assistant text of the final turn: what followed the last
// tool result, as Claude's result and Codex's last agent_message hold.
class GeminiStream final : public CliStreamParser {
public:
  void parse_line(std::string_view line, std::vector<CliEvent>& out) override;
  void finish(std::vector<CliEvent>& out) override;

private:
  void on_result(const nlohmann::json& line, std::vector<CliEvent>& out);

  OpenToolCalls m_calls;
  std::string m_answer;
};

} // namespace ralph::agent
