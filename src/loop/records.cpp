#include "records.h"

#include "ralph/core/json.h"

#include <nlohmann/json.hpp>

namespace ralph::loop {
namespace {

std::string evidence_json(const verify::CommandEvidence& evidence, const Redactor& redactor) {
  const nlohmann::json out = {
      {"command", redactor.redact(evidence.command)},
      {"exit_code",
       evidence.exit_code ? nlohmann::json(*evidence.exit_code) : nlohmann::json(nullptr)},
      {"duration_ms", evidence.duration_ms},
      {"started_at", evidence.started_at},
      {"finished_at", evidence.finished_at},
      {"excerpt", redactor.redact(evidence.excerpt)},
      {"runs", evidence.runs},
      {"passes", evidence.passes},
  };
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The evidence recorded with a verdict; nullopt when there was none (or it is unreadable).
std::optional<verify::CommandEvidence> evidence_from_json(const std::string& json,
                                                          const std::string& output) {
  const auto parsed = parse_json(json, "verdict evidence");
  if (!parsed || !parsed->is_object()) {
    return std::nullopt;
  }
  const nlohmann::json& evidence = *parsed;
  verify::CommandEvidence out;
  out.command = evidence.value("command", "");
  if (evidence.contains("exit_code") && evidence["exit_code"].is_number_integer()) {
    out.exit_code = evidence["exit_code"].get<int>();
  }
  out.duration_ms = evidence.value("duration_ms", std::int64_t{0});
  out.started_at = evidence.value("started_at", "");
  out.finished_at = evidence.value("finished_at", "");
  out.excerpt = evidence.value("excerpt", "");
  out.runs = evidence.value("runs", 1);
  out.passes = evidence.value("passes", 0);
  out.output = output;
  return out;
}

} // namespace

store::VerdictRow verdict_row(const verify::Verdict& verdict, const std::string& session_id,
                              int iteration, int seq, const Redactor& redactor) {
  store::VerdictRow row;
  row.session_id = session_id;
  row.iteration = iteration;
  row.seq = seq;
  row.verifier = verdict.verifier;
  row.kind = to_string(verdict.kind);
  row.result = verdict.result;
  row.category = verdict.category.name();
  row.feedback = redactor.redact(verdict.feedback);
  row.reasoning = redactor.redact(verdict.reasoning);
  row.policy = verdict.policy;
  row.model = verdict.model;
  row.input_tokens = verdict.usage.input_tokens;
  row.output_tokens = verdict.usage.output_tokens;
  row.duration_ms = verdict.duration_ms;
  if (verdict.evidence) {
    row.evidence_json = evidence_json(*verdict.evidence, redactor);
    row.output = redactor.redact(verdict.evidence->output);
  }
  return row;
}

verify::Verdict verdict_from_row(const store::VerdictRow& row) {
  return verify::Verdict{
      .verifier = row.verifier,
      .kind =
          value_of(verify::k_verifier_kind_names, row.kind).value_or(verify::VerifierKind::custom),
      .result = row.result,
      .category = verify::Category::named(row.category),
      .feedback = row.feedback,
      .reasoning = row.reasoning,
      .evidence = evidence_from_json(row.evidence_json, row.output),
      .usage = {.input_tokens = row.input_tokens, .output_tokens = row.output_tokens},
      .model = row.model,
      .duration_ms = row.duration_ms,
      .policy = row.policy};
}

} // namespace ralph::loop
