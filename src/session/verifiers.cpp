#include "ralph/session/verifiers.h"

#include "ralph/core/try.h"
#include "ralph/llm/factory.h"
#include "ralph/session/agents.h"
#include "ralph/verify/checks_verifier.h"
#include "ralph/verify/command_verifier.h"
#include "ralph/verify/evidence_verifier.h"
#include "ralph/verify/exec_verifier.h"
#include "ralph/verify/judge_rules.h"
#include "ralph/verify/judge_verifier.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace ralph::session {
namespace {

template <typename T>
void add(VerifierSetup& setup, std::unique_ptr<T> verifier, ErrorPolicy policy) {
  setup.entries.push_back({std::move(verifier), policy});
}

bool any_check(const ChecksSettings& checks) {
  return !checks.must_match.empty() || !checks.must_not_match.empty() || checks.json ||
         !checks.json_schema.empty() || checks.min_chars > 0 || checks.max_chars > 0 ||
         checks.min_bullets > 0 || checks.max_bullets > 0;
}

Result<void> add_checks(VerifierSetup& setup, const ChecksSettings& checks,
                        const std::filesystem::path& workspace) {
  if (!any_check(checks)) {
    return {};
  }
  std::string schema;
  if (!checks.json_schema.empty()) {
    std::ifstream in(workspace / checks.json_schema, std::ios::binary);
    if (!in) {
      return fail(ErrorKind::config,
                  fmt::format("checks.json_schema: cannot read {}", checks.json_schema));
    }
    std::ostringstream text;
    text << in.rdbuf();
    schema = text.str();
  }
  TRY_ASSIGN(auto verifier, verify::make_checks_verifier(checks, schema));
  add(setup, std::move(verifier), ErrorPolicy::fail_closed);
  return {};
}

Result<void> add_protected(VerifierSetup& setup, const VerifySettings& verify,
                           const std::filesystem::path& workspace,
                           const std::optional<verify::ProtectedSnapshot>& baseline) {
  if (verify.protect.empty()) {
    return {};
  }
  if (baseline) {
    setup.baseline = *baseline;
  } else {
    TRY_ASSIGN(setup.baseline, verify::snapshot_protected(workspace, verify.protect));
  }
  if (setup.baseline.digests.empty()) {
    setup.warnings.push_back(
        fmt::format("--protect {}: no file matches", fmt::join(verify.protect, ", ")));
  }
  add(setup, std::make_unique<verify::ProtectedPathsVerifier>(verify.protect, setup.baseline),
      ErrorPolicy::fail_closed);
  return {};
}

} // namespace

Result<Model> judge_model(const Config& config, ModelProviders& models, VerifierSetup& setup) {
  const std::string& model = config.judge.model.empty() ? config.model : config.judge.model;
  TRY_ASSIGN(Model judge, models.make(model, config.judge.base_url));
  // An external agent CLI's model is its own: `config.model` is not what it runs on.
  const auto agent = llm::parse_model_spec(config.model);
  if (!agent || judge.spec.provider == llm::ProviderKind::scripted || uses_external_agent(config)) {
    return judge;
  }
  // By who trained the models, not by who serves them: openai-compat/claude-… is Anthropic's.
  const std::string_view family = llm::model_family(judge.spec);
  const bool same_model = agent->label() == judge.spec.label();
  if (same_model || (!family.empty() && family == llm::model_family(*agent))) {
    setup.warnings.push_back(fmt::format(
        "the judge ({}) is {}; a judge from another family (e.g. --judge {}) checks more "
        "independently",
        judge.spec.label(),
        same_model ? "the agent's own model" : fmt::format("of the agent's family ({})", family),
        family == "anthropic" ? "openai/gpt-4.1" : "anthropic/claude-sonnet-4-5"));
  }
  return judge;
}

Result<VerifierSetup> build_verifiers(const Config& config, const std::filesystem::path& workspace,
                                      tools::ProcessRunner& runner, ModelProviders& models,
                                      const std::optional<verify::ProtectedSnapshot>& baseline,
                                      bool with_judge, const Redactor& redactor) {
  VerifierSetup setup;
  setup.rules = verify::read_judge_rules(
      workspace, verify::judge_rules_file_names(config.judge.rules_files, config.loop.heartbeat),
      config.judge.rules_chars);
  TRY(add_protected(setup, config.verify, workspace, baseline));
  TRY(add_checks(setup, config.checks, workspace));
  // Settings of verify commands do nothing without one: said, not refused (a user's
  // configuration may set them for every project).
  if (config.verify.commands.empty() && (config.verify.runs > 1 || config.verify.quorum > 1)) {
    setup.warnings.emplace_back(
        "--reruns and --quorum (verify.runs, verify.quorum) do nothing without a verify command "
        "(--verify-cmd)");
  }
  for (const auto& command : config.verify.commands) {
    TRY_ASSIGN(auto verifier,
               verify::make_command_verifier(command, config.verify, runner, redactor));
    add(setup, std::move(verifier), config.verify.command_policy);
  }
  for (const auto& program : config.verify.exec) {
    TRY_ASSIGN(auto verifier, verify::make_exec_verifier(program, config.verify, runner));
    add(setup, std::move(verifier), ErrorPolicy::fail_closed);
  }
  if (config.evidence.enabled) {
    add(setup, std::make_unique<verify::EvidenceVerifier>(config.evidence, config.verify.commands),
        ErrorPolicy::fail_closed);
  }
  // Seed 001: enabling the loop with no other verifier means a judge on the agent's model.
  const bool judged = !config.judge.model.empty() || config.judge.on_agent_model ||
                      (config.loop.enabled && setup.entries.empty());
  if (with_judge && judged) {
    TRY_ASSIGN(const Model judge, judge_model(config, models, setup));
    add(setup,
        std::make_unique<verify::JudgeVerifier>(*judge.provider, judge.spec, config.judge,
                                                setup.rules),
        config.judge.policy);
  }
  return setup;
}

} // namespace ralph::session
