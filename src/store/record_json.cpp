#include "ralph/store/record_json.h"

#include "ralph/core/json.h"

#include <nlohmann/json.hpp>

namespace ralph::store {
namespace {

using json = nlohmann::json;

json usage_json(std::int64_t input, std::int64_t output) {
  return {{"input_tokens", input}, {"output_tokens", output}};
}

} // namespace

json json_or_text(const std::string& text) {
  // Bounded like every untrusted text: tool arguments too deep to print stay text.
  auto value = parse_json(text, "record");
  return value ? std::move(*value) : json(text);
}

json tool_call_json(const ToolCallRow& tool) {
  return {{"id", tool.call_id},
          {"name", tool.name},
          {"arguments", json_or_text(tool.arguments)},
          {"result", tool.result},
          {"exit_code", tool.exit_code ? json(*tool.exit_code) : json()},
          {"is_error", tool.is_error},
          {"changed_workspace", tool.changed_workspace},
          {"duration_ms", tool.duration_ms},
          {"at", tool.at}};
}

json verdict_json(const VerdictRow& verdict) {
  return {
      {"verifier", verdict.verifier},
      {"kind", verdict.kind},
      {"result", to_string(verdict.result)},
      {"category", verdict.category},
      {"feedback", verdict.feedback},
      {"reasoning", verdict.reasoning},
      {"policy", verdict.policy ? json(to_string(*verdict.policy)) : json()},
      {"model", verdict.model},
      {"usage", usage_json(verdict.input_tokens, verdict.output_tokens)},
      {"duration_ms", verdict.duration_ms},
      {"evidence", verdict.evidence_json.empty() ? json() : json_or_text(verdict.evidence_json)},
      {"output", verdict.output},
      {"at", verdict.at}};
}

json attempt_json(const AttemptRow& attempt) {
  return {
      {"iteration", attempt.iteration},
      {"finished", attempt.finished},
      {"started_at", attempt.started_at},
      {"finished_at", attempt.finished_at},
      {"answer", attempt.answer},
      {"stop", attempt.stop},
      {"steps", attempt.steps},
      {"tool_call_count", attempt.tool_calls},
      {"usage", {{"input_tokens", attempt.input_tokens}, {"output_tokens", attempt.output_tokens}}},
      {"duration_ms", attempt.duration_ms},
      {"verified", attempt.verified},
      {"skip_reason", attempt.skip_reason},
      {"passed", attempt.passed},
      {"feedback", attempt.feedback}};
}

json model_call_json(const ModelCallRow& call) {
  return {{"iteration", call.iteration},
          {"step", call.step},
          {"model", call.model},
          {"usage", usage_json(call.input_tokens, call.output_tokens)},
          {"stop_reason", call.stop_reason},
          {"at", call.at}};
}

std::string attempt_trace_json(const SessionRow& session, const AttemptRow& attempt,
                               const std::vector<ToolCallRow>& tools,
                               const std::vector<VerdictRow>& verdicts) {
  json tool_list = json::array();
  for (const auto& tool : tools) {
    if (tool.iteration == attempt.iteration) {
      tool_list.push_back(tool_call_json(tool));
    }
  }
  json verdict_list = json::array();
  for (const auto& verdict : verdicts) {
    if (verdict.iteration == attempt.iteration) {
      verdict_list.push_back(verdict_json(verdict));
    }
  }
  json trace = {
      {"session_id", session.id},
      {"session_kind", to_string(session.kind)},
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
      {"usage", usage_json(attempt.input_tokens, attempt.output_tokens)},
      {"tool_calls", std::move(tool_list)},
      {"verdicts", std::move(verdict_list)},
  };
  if (!session.parent_id.empty()) {
    trace["parent_id"] = session.parent_id;
  }
  return trace.dump(2, ' ', false, json::error_handler_t::replace);
}

} // namespace ralph::store
