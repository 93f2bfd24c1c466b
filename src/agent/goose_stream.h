#pragma once

#include "agent/cli_tool_calls.h"

#include "ralph/agent/cli_stream.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace ralph::agent {

// `goose run --output-format stream-json`. Assistant `message` lines carry text (pieces of one
// message share an id, so each is a delta) and toolRequest calls; user lines carry the
// toolResponse results, in either value shape (MCP content array, or {content, isError}).
// goose exits 0 after a provider error, so an `error` event fails the run even when `complete`
// follows; `complete` is the terminal event. Its total_tokens has no input/output split: it is
// reported as input tokens, the bulk of any agent run, so totals and budgets are right and only
// the split is unknown; a null total gives no usage. goose prints no session id or cost.
class GooseStream final : public CliStreamParser {
public:
  void parse_line(std::string_view line, std::vector<CliEvent>& out) override;
  void finish(std::vector<CliEvent>& out) override;

private:
  void on_message(const nlohmann::json& message, std::vector<CliEvent>& out);
  void on_complete(const nlohmann::json& line, std::vector<CliEvent>& out);

  OpenToolCalls m_calls;
  std::string m_answer; // the assistant text since the last tool call
  std::string m_error;  // the last `error` event's text
  bool m_failed = false;
};

} // namespace ralph::agent
