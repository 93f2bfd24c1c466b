#include "ralph/store/trace_json.h"

#include <nlohmann/json.hpp>

namespace ralph::store {

std::string attempt_trace_json(const SessionRow& session, const AttemptRow& attempt,
                               const std::vector<ToolCallRow>& tools,
                               const std::vector<VerdictRow>& verdicts) {
  using json = nlohmann::json;
  json tool_list = json::array();
  for (const auto& tool : tools) {
    if (tool.iteration != attempt.iteration) {
      continue;
    }
    tool_list.push_back({{"name", tool.name},
                         {"arguments", tool.arguments},
                         {"result", tool.result},
                         {"exit_code", tool.exit_code ? json(*tool.exit_code) : json(nullptr)},
                         {"is_error", tool.is_error},
                         {"changed_workspace", tool.changed_workspace},
                         {"duration_ms", tool.duration_ms}});
  }
  json verdict_list = json::array();
  for (const auto& verdict : verdicts) {
    if (verdict.iteration != attempt.iteration) {
      continue;
    }
    json evidence = verdict.evidence_json.empty()
                        ? json(nullptr)
                        : json::parse(verdict.evidence_json, nullptr, false);
    verdict_list.push_back({{"verifier", verdict.verifier},
                            {"result", verdict.result},
                            {"category", verdict.category},
                            {"feedback", verdict.feedback},
                            {"reasoning", verdict.reasoning},
                            {"policy", verdict.policy},
                            {"evidence", evidence.is_discarded() ? json(nullptr) : evidence}});
  }
  const json trace = {
      {"session_id", session.id},
      {"goal", session.goal},
      {"created_at", session.created_at},
      {"iteration", attempt.iteration},
      {"started_at", attempt.started_at},
      {"finished_at", attempt.finished_at},
      {"answer", attempt.answer},
      {"stop", attempt.stop},
      {"steps", attempt.steps},
      {"verified", attempt.verified},
      {"skip_reason", attempt.skip_reason},
      {"passed", attempt.passed},
      {"feedback", attempt.feedback},
      {"usage", {{"input_tokens", attempt.input_tokens}, {"output_tokens", attempt.output_tokens}}},
      {"tool_calls", std::move(tool_list)},
      {"verdicts", std::move(verdict_list)},
  };
  return trace.dump(2, ' ', false, json::error_handler_t::replace);
}

} // namespace ralph::store
