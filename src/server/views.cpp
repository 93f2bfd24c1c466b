#include "server/views.h"

#include "ralph/core/text.h"
#include "ralph/store/record_json.h"

#include <map>

namespace ralph::server {
namespace {

nlohmann::json cost_json(const store::SessionRow& row) {
  return row.cost_known ? nlohmann::json(row.cost_usd) : nlohmann::json(nullptr);
}

nlohmann::json budget(double used, double limit) {
  return {{"used", used}, {"limit", limit}};
}

// The agent that works on the session: an agent CLI's name, empty for the built-in one.
std::string agent_of(const std::optional<Config>& config) {
  if (!config) {
    return {};
  }
  return config->agent.cli.empty() && !config->agent.command.empty() ? "command"
                                                                     : config->agent.cli;
}

std::optional<int> tests_failed(const store::VerdictRow& verdict) {
  if (verdict.evidence_json.empty()) {
    return std::nullopt;
  }
  const nlohmann::json evidence = nlohmann::json::parse(verdict.evidence_json, nullptr, false);
  if (!evidence.is_object() || !evidence.contains("tests") || !evidence["tests"].is_object()) {
    return std::nullopt;
  }
  const nlohmann::json& failed = evidence["tests"]["failed"];
  return failed.is_number_integer() ? std::optional<int>(failed.get<int>()) : std::nullopt;
}

} // namespace

nlohmann::json session_summary(const store::SessionRow& row, const SessionFacts& facts,
                               const std::optional<Config>& config) {
  return {{"id", row.id},
          {"goal", row.goal},
          {"status", to_string(row.status)},
          {"running", facts.running},
          {"hosted", facts.hosted},
          {"reason", row.reason},
          {"verified", row.verified},
          {"kind", store::to_string(row.kind)},
          {"parent_id", row.parent_id},
          {"model", row.model},
          {"agent", agent_of(config)},
          {"workspace", row.workspace},
          {"iterations", row.iterations},
          {"max_iterations", config ? nlohmann::json(config->loop.max_iterations) : nullptr},
          {"input_tokens", row.input_tokens},
          {"output_tokens", row.output_tokens},
          {"usage_estimated", row.usage_estimated},
          {"cost_usd", cost_json(row)},
          {"elapsed_ms", row.elapsed_ms},
          {"created_at", row.created_at},
          {"updated_at", row.updated_at},
          {"batch", facts.batch}};
}

nlohmann::json verdict_view(const store::VerdictRow& verdict, std::optional<int> failed_before,
                            std::size_t head_bytes) {
  nlohmann::json out = store::verdict_json(verdict);
  out["seq"] = verdict.seq;
  out["iteration"] = verdict.iteration;
  nlohmann::json tests = nullptr;
  if (out.contains("evidence") && out["evidence"].is_object() &&
      out["evidence"].contains("tests") && out["evidence"]["tests"].is_object()) {
    tests = out["evidence"]["tests"];
    tests["failed_before"] = failed_before ? nlohmann::json(*failed_before) : nullptr;
  }
  out["tests"] = tests;
  out["output_bytes"] = verdict.output.size();
  if (head_bytes > 0) {
    out.erase("output");
    out["output_head"] = std::string(utf8_prefix(verdict.output, head_bytes));
  }
  return out;
}

nlohmann::json tool_call_detail(const store::ToolCallRow& call) {
  nlohmann::json out = store::tool_call_json(call);
  out["seq"] = call.seq;
  out["iteration"] = call.iteration;
  out["result_bytes"] = call.result.size();
  return out;
}

nlohmann::json session_detail(const store::SessionRecord& record, const SessionFacts& facts,
                              const std::optional<Config>& config, std::size_t head_bytes) {
  const store::SessionRow& row = record.session;
  nlohmann::json summary = session_summary(row, facts, config);
  summary["answer"] = row.answer;
  nlohmann::json budgets = {
      {"attempts", budget(row.iterations, config ? config->loop.max_iterations : 0)},
      {"tokens", budget(static_cast<double>(row.input_tokens + row.output_tokens),
                        config ? static_cast<double>(config->budget.max_tokens) : 0)},
      {"cost_usd", budget(row.cost_usd, config ? config->budget.max_cost_usd : 0)},
      {"time_ms",
       budget(static_cast<double>(row.elapsed_ms),
              config ? static_cast<double>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                               config->budget.max_time)
                                               .count())
                     : 0)}};

  // The failing count each verifier had in the attempt before, for "failing 3 → 1".
  std::map<std::string, int> failing_before;
  nlohmann::json attempts = nlohmann::json::array();
  for (const store::AttemptRow& attempt : record.attempts) {
    nlohmann::json verdicts = nlohmann::json::array();
    std::map<std::string, int> failing_now;
    for (const store::VerdictRow& verdict : record.verdicts) {
      if (verdict.iteration != attempt.iteration) {
        continue;
      }
      const auto before = failing_before.find(verdict.verifier);
      verdicts.push_back(verdict_view(
          verdict,
          before == failing_before.end() ? std::nullopt : std::optional<int>(before->second),
          head_bytes));
      if (const std::optional<int> failed = tests_failed(verdict)) {
        failing_now[verdict.verifier] = *failed;
      }
    }
    for (const auto& [verifier, failed] : failing_now) {
      failing_before[verifier] = failed;
    }
    nlohmann::json tools = nlohmann::json::array();
    for (const store::ToolCallRow& call : record.tool_calls) {
      if (call.iteration != attempt.iteration) {
        continue;
      }
      nlohmann::json tool = tool_call_detail(call);
      tool.erase("result");
      tool["result_head"] = std::string(utf8_prefix(call.result, head_bytes));
      tools.push_back(std::move(tool));
    }
    nlohmann::json calls = nlohmann::json::array();
    for (const store::ModelCallRow& call : record.model_calls) {
      if (call.iteration == attempt.iteration) {
        calls.push_back(store::model_call_json(call));
      }
    }
    nlohmann::json entry = store::attempt_json(attempt);
    entry["verdicts"] = std::move(verdicts);
    entry["tool_calls"] = std::move(tools);
    entry["model_calls"] = std::move(calls);
    attempts.push_back(std::move(entry));
  }
  nlohmann::json recorded_config = store::json_or_text(row.config_json);
  return {{"session", std::move(summary)},
          {"budgets", std::move(budgets)},
          {"config", std::move(recorded_config)},
          {"attempts", std::move(attempts)},
          {"candidates", nlohmann::json::array()}};
}

} // namespace ralph::server
