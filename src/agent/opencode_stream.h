#pragma once

#include "ralph/agent/cli_stream.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace ralph::agent {

// `opencode run --format json`, v1 and v2 events. The first sessionID names the session; `text`
// parts are whole blocks; `tool_use` comes only when a tool finished, so there is no
// CliToolStarted (the call id is v1 `callID`, v2 `id`; the bash exit code v1
// state.metadata.exit, v2 state.metadata.metadata.exit). Each step_finish adds its cost and
// tokens and reports the running total. The first `error` event (v1 {name,data:{message}}, v2
// {type,message}) ends the run as failed; v2 may go on after a failed step and still exit 1,
// which this matches. v1's `done` ends it as done, the last text block the answer. v2 has no
// terminal event: finish() reports success when no error came and the last step finished with
// reason "stop" (or "end_turn": the model ended its turn; "tool-calls", "length" or no step at all
// mean the output was cut), and nothing otherwise, leaving the missing end to the caller.
class OpencodeStream final : public CliStreamParser {
public:
  void parse_line(std::string_view line, std::vector<CliEvent>& out) override;
  void finish(std::vector<CliEvent>& out) override;

private:
  void on_tool(const nlohmann::json& part, std::vector<CliEvent>& out) const;
  void on_step_finish(const nlohmann::json& part, std::vector<CliEvent>& out);

  Usage m_usage;
  double m_cost = 0;
  bool m_costed = false; // some step reported a cost
  std::string m_answer;  // the last text block
  std::string m_last_reason;
  bool m_session_seen = false;
  bool m_ended = false; // a CliResult went out
};

} // namespace ralph::agent
