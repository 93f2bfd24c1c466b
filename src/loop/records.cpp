#include "ralph/loop/records.h"

#include "ralph/core/json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>

namespace ralph::loop {
namespace {

// A count a damaged record may hold as anything: a non-negative int, else `fallback`.
int count_member(const nlohmann::json& value, const char* key, int fallback) {
  return int_member_or(value, key, fallback, 0, std::numeric_limits<int>::max());
}

// A count a record may not hold (the runner did not give it, or an old record): nullopt then.
std::optional<int> optional_count_member(const nlohmann::json& value, const char* key) {
  const std::optional<std::int64_t> count = int_member(value, key);
  if (!count) {
    return std::nullopt;
  }
  return static_cast<int>(std::clamp<std::int64_t>(*count, 0, std::numeric_limits<int>::max()));
}

std::string text_member(const nlohmann::json& value, const char* key) {
  return std::string(string_member(value, key));
}

nlohmann::json names_json(const std::vector<std::string>& names, const Redactor& redactor) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::string& name : names) {
    out.push_back(redactor.redact(name));
  }
  return out;
}

std::vector<std::string> names_from_json(const nlohmann::json& tests, const char* key) {
  std::vector<std::string> out;
  if (!tests.contains(key) || !tests[key].is_array()) {
    return out;
  }
  for (const auto& name : tests[key]) {
    if (name.is_string()) {
      out.push_back(name.get<std::string>());
    }
  }
  return out;
}

nlohmann::json tests_json(const verify::TestSummary& tests, const Redactor& redactor) {
  return {{"runner", tests.runner},
          {"failed", tests.failed},
          {"passed", int_or_null(tests.passed)},
          {"total", int_or_null(tests.total)},
          {"failing", names_json(tests.failing, redactor)},
          {"passing", names_json(tests.passing, redactor)}};
}

std::optional<verify::TestSummary> tests_from_json(const nlohmann::json& evidence) {
  if (!evidence.contains("tests") || !evidence["tests"].is_object()) {
    return std::nullopt;
  }
  const nlohmann::json& tests = evidence["tests"];
  return verify::TestSummary{.runner = text_member(tests, "runner"),
                             .failed = count_member(tests, "failed", 0),
                             .passed = optional_count_member(tests, "passed"),
                             .total = optional_count_member(tests, "total"),
                             .failing = names_from_json(tests, "failing"),
                             .passing = names_from_json(tests, "passing")};
}

// The verdict's test counts travel with its evidence; `tests` is left out when there are none.
std::string evidence_json(const verify::CommandEvidence& evidence,
                          const std::optional<verify::TestSummary>& tests,
                          const Redactor& redactor) {
  nlohmann::json out = {
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
  if (tests) {
    out["tests"] = tests_json(*tests, redactor);
  }
  if (!evidence.output_path.empty()) {
    out["output_path"] = evidence.output_path;
  }
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The evidence recorded with a verdict; nullopt when there was none (or it is unreadable).
std::optional<verify::CommandEvidence> evidence_from_json(const nlohmann::json& evidence,
                                                          const std::string& output) {
  if (!evidence.is_object()) {
    return std::nullopt;
  }
  verify::CommandEvidence out;
  out.command = text_member(evidence, "command");
  if (const nlohmann::json* code = member(evidence, "exit_code");
      code != nullptr && code->is_number_integer()) {
    out.exit_code = int_member_or(evidence, "exit_code", 0, std::numeric_limits<int>::min(),
                                  std::numeric_limits<int>::max());
  }
  out.duration_ms = int_member(evidence, "duration_ms").value_or(0);
  out.started_at = text_member(evidence, "started_at");
  out.finished_at = text_member(evidence, "finished_at");
  out.excerpt = text_member(evidence, "excerpt");
  out.runs = count_member(evidence, "runs", 1);
  out.passes = count_member(evidence, "passes", 0);
  out.output_path = text_member(evidence, "output_path");
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
  row.verifier = redactor.redact(verdict.verifier); // a --verify-cmd may hold a literal secret
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
    row.evidence_json = evidence_json(*verdict.evidence, verdict.tests, redactor);
    row.output = redactor.redact(verdict.evidence->output);
  }
  return row;
}

verify::Verdict verdict_from_row(const store::VerdictRow& row) {
  const nlohmann::json evidence =
      parse_json(row.evidence_json, "verdict evidence").value_or(nlohmann::json());
  // Without evidence the counts were not stored: they came from the feedback, and are found
  // there again the same way.
  std::optional<verify::TestSummary> tests =
      evidence.is_object() ? tests_from_json(evidence) : verify::parse_test_summary(row.feedback);
  return verify::Verdict{
      .verifier = row.verifier,
      .kind =
          value_of(verify::k_verifier_kind_names, row.kind).value_or(verify::VerifierKind::custom),
      .result = row.result,
      .category = verify::Category::named(row.category),
      .feedback = row.feedback,
      .reasoning = row.reasoning,
      .evidence = evidence_from_json(evidence, row.output),
      .tests = std::move(tests),
      .usage = {.input_tokens = row.input_tokens, .output_tokens = row.output_tokens},
      .model = row.model,
      .duration_ms = row.duration_ms,
      .policy = row.policy};
}

} // namespace ralph::loop
