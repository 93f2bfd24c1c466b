#include "ralph/session/report.h"

#include "ralph/core/json.h"

#include <nlohmann/json.hpp>

namespace ralph::session {

namespace {

// A verdict as the report shows it: redacted, and without what it never shows (the judge's
// reasoning, a command's excerpt and whole output), so nothing unredacted stays in it.
void redact_verdict(verify::Verdict& verdict, const Redactor& redactor) {
  verdict.verifier = redactor.redact(verdict.verifier);
  verdict.feedback = redactor.redact(verdict.feedback);
  verdict.reasoning.clear();
  if (verdict.evidence) {
    verdict.evidence->command = redactor.redact(verdict.evidence->command);
    verdict.evidence->excerpt.clear();
    verdict.evidence->output.clear();
  }
}

} // namespace

SessionReport make_report(std::string session_id, const loop::LoopResult& result,
                          const Redactor& redactor) {
  SessionReport report;
  report.session_id = std::move(session_id);
  report.status = result.status;
  report.reason = redactor.redact(result.reason);
  report.verified = result.verified;
  report.iterations = static_cast<int>(result.attempts.size());
  report.best_iteration = result.best_iteration;
  for (const auto& attempt : result.attempts) {
    report.steps += attempt.steps;
    report.tool_calls += attempt.tool_calls;
    for (const auto& verdict : attempt.verdicts) {
      report.verdicts.emplace_back(attempt.iteration, verdict);
      redact_verdict(report.verdicts.back().second, redactor);
    }
  }
  report.answer = redactor.redact(result.answer);
  report.notice = redactor.redact(result.notice);
  report.usage = result.usage;
  if (result.cost_known) {
    report.cost_usd = result.cost_usd;
  }
  report.duration_ms = result.duration_ms;
  report.error = result.error;
  if (report.error) {
    report.error->message = redactor.redact(report.error->message);
  }
  return report;
}

nlohmann::json report_json(const SessionReport& report) {
  nlohmann::json verdicts = nlohmann::json::array();
  for (const auto& [iteration, verdict] : report.verdicts) {
    nlohmann::json entry = {{"iteration", iteration},
                            {"verifier", verdict.verifier},
                            {"result", to_string(verdict.result)},
                            {"category", verdict.category.name()},
                            {"feedback", verdict.feedback}};
    if (verdict.policy) {
      entry["policy"] = to_string(*verdict.policy);
    }
    if (verdict.tests) {
      entry["tests"] = {{"runner", verdict.tests->runner},
                        {"failed", verdict.tests->failed},
                        {"passed", int_or_null(verdict.tests->passed)},
                        {"total", int_or_null(verdict.tests->total)}};
    }
    if (verdict.evidence) {
      entry["evidence"] = {{"command", verdict.evidence->command},
                           {"exit_code", verdict.evidence->exit_code
                                             ? nlohmann::json(*verdict.evidence->exit_code)
                                             : nlohmann::json(nullptr)},
                           {"duration_ms", verdict.evidence->duration_ms},
                           {"runs", verdict.evidence->runs},
                           {"passes", verdict.evidence->passes}};
    }
    verdicts.push_back(std::move(entry));
  }
  nlohmann::json result = {
      {"session_id", report.session_id},
      {"status", to_string(report.status)},
      {"reason", report.reason},
      {"verified", report.verified},
      {"iterations", report.iterations},
      {"best_iteration", report.best_iteration},
      {"answer", report.answer},
      {"verdicts", std::move(verdicts)},
      {"usage",
       {{"input_tokens", report.usage.input_tokens},
        {"output_tokens", report.usage.output_tokens}}},
      {"cost_usd", report.cost_usd ? nlohmann::json(*report.cost_usd) : nlohmann::json(nullptr)},
      {"steps", report.steps},
      {"tool_calls", report.tool_calls},
      {"duration_ms", report.duration_ms},
  };
  if (report.usage.estimated) {
    result["usage"]["estimated"] = true;
  }
  if (report.error) {
    result["error"] = {{"kind", to_string(report.error->kind)}, {"message", report.error->message}};
  }
  return result;
}

SessionReport report_from_record(const store::SessionRecord& record) {
  const store::SessionRow& row = record.session;
  SessionReport report;
  report.session_id = row.id;
  report.status = row.status;
  report.reason = row.reason;
  report.verified = row.verified;
  report.iterations = row.iterations;
  report.best_iteration = row.best_iteration;
  report.answer = row.answer;
  report.usage.input_tokens = row.input_tokens;
  report.usage.output_tokens = row.output_tokens;
  report.usage.estimated = row.usage_estimated;
  if (row.cost_known) {
    report.cost_usd = row.cost_usd;
  }
  report.duration_ms = row.elapsed_ms;
  for (const store::AttemptRow& attempt : record.attempts) {
    report.steps += attempt.steps;
    report.tool_calls += attempt.tool_calls;
  }
  for (const store::VerdictRow& row_verdict : record.verdicts) {
    verify::Verdict verdict;
    verdict.verifier = row_verdict.verifier;
    verdict.result = row_verdict.result;
    verdict.category = verify::Category::named(row_verdict.category);
    verdict.feedback = row_verdict.feedback;
    verdict.policy = row_verdict.policy;
    report.verdicts.emplace_back(row_verdict.iteration, std::move(verdict));
  }
  return report;
}

} // namespace ralph::session
