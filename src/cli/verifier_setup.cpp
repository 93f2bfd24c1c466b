#include "cli/verifier_setup.h"

#include "ralph/http/curl_transport.h"
#include "ralph/llm/factory.h"
#include "ralph/verify/checks_verifier.h"
#include "ralph/verify/command_verifier.h"
#include "ralph/verify/evidence_verifier.h"
#include "ralph/verify/exec_verifier.h"
#include "ralph/verify/judge_verifier.h"
#include "ralph/verify/protected_paths.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ralph::cli {
namespace {

loop::ErrorPolicy policy_of(const std::string& name) {
  return name == "fail_open" ? loop::ErrorPolicy::fail_open : loop::ErrorPolicy::fail_closed;
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

template <typename T>
Result<void> add(VerifierSetup& setup, Result<std::unique_ptr<T>> verifier,
                 loop::ErrorPolicy policy) {
  if (!verifier) {
    return tl::unexpected(verifier.error());
  }
  setup.entries.push_back({std::move(*verifier), policy});
  return {};
}

Result<void> add_checks(VerifierSetup& setup, const Config& config,
                        const std::filesystem::path& workspace) {
  const ChecksSettings& checks = config.checks;
  verify::ChecksOptions options;
  options.must_match = checks.must_match;
  options.must_not_match = checks.must_not_match;
  options.json = checks.json;
  const auto bound = [](std::int64_t value) -> std::optional<std::size_t> {
    return value > 0 ? std::optional<std::size_t>(static_cast<std::size_t>(value)) : std::nullopt;
  };
  options.min_chars = bound(checks.min_chars);
  options.max_chars = bound(checks.max_chars);
  options.min_bullets = bound(checks.min_bullets);
  options.max_bullets = bound(checks.max_bullets);
  if (!checks.json_schema.empty()) {
    std::ifstream in(workspace / checks.json_schema, std::ios::binary);
    if (!in) {
      return fail(ErrorKind::config,
                  fmt::format("checks.json_schema: cannot read {}", checks.json_schema));
    }
    std::ostringstream text;
    text << in.rdbuf();
    options.json_schema = text.str();
  }
  const bool any = !options.must_match.empty() || !options.must_not_match.empty() || options.json ||
                   !options.json_schema.empty() || options.min_chars || options.max_chars ||
                   options.min_bullets || options.max_bullets;
  if (!any) {
    return {};
  }
  return add(setup, verify::make_checks_verifier(std::move(options)),
             loop::ErrorPolicy::fail_closed);
}

Result<void> add_judge(VerifierSetup& setup, const Config& config, Clock& clock) {
  std::string model = config.judge.model;
  if (model.empty() && config.loop.enabled && setup.entries.empty()) {
    model = "agent"; // seed 001: enabling the loop alone means an LLM verifier
  }
  if (model.empty()) {
    return {};
  }
  auto judge = add_judge_model(setup, config, model, clock);
  if (!judge) {
    return tl::unexpected(judge.error());
  }
  verify::JudgeOptions options;
  options.model = judge->model;
  options.model_label = judge->label;
  options.max_tokens = config.judge.max_tokens;
  options.timeout = std::chrono::seconds(config.judge.timeout_s);
  options.context_chars = static_cast<std::size_t>(config.judge.context_chars);
  options.rules_chars = static_cast<std::size_t>(config.judge.rules_chars);
  options.rules_files = config.judge.rules_files;
  options.structured = config.judge.structured;
  setup.entries.push_back({std::make_unique<verify::JudgeVerifier>(*judge->provider, options),
                           policy_of(config.judge.policy)});
  return {};
}

} // namespace

Result<llm::ProviderConfig> provider_config(const std::string& model, const std::string& base_url,
                                            const HttpSettings& http) {
  auto spec = llm::parse_model_spec(model);
  if (!spec) {
    return tl::unexpected(spec.error());
  }
  llm::ProviderConfig provider;
  provider.spec = *spec;
  provider.base_url = base_url;
  if (provider.spec.provider == "anthropic") {
    provider.api_key = env_or_empty("ANTHROPIC_API_KEY");
  } else if (provider.spec.provider == "openai" || provider.spec.provider == "openai-compat") {
    provider.api_key = env_or_empty("OPENAI_API_KEY");
    if (provider.base_url.empty() && provider.spec.provider == "openai") {
      provider.base_url = env_or_empty("OPENAI_BASE_URL");
    }
  }
  provider.retry.max_attempts = http.max_retries + 1;
  provider.connect_timeout = std::chrono::seconds(http.connect_timeout_s);
  provider.idle_timeout = std::chrono::seconds(http.idle_timeout_s);
  return provider;
}

Result<VerifierSetup> build_verifiers(const Config& config, const std::filesystem::path& workspace,
                                      tools::ProcessRunner& runner, Clock& clock,
                                      const std::optional<verify::ProtectedSnapshot>& baseline) {
  VerifierSetup setup;
  if (!config.verify.protect.empty()) {
    if (baseline) {
      setup.baseline = *baseline;
    } else {
      auto snapshot = verify::snapshot_protected(workspace, config.verify.protect);
      if (!snapshot) {
        return tl::unexpected(snapshot.error());
      }
      setup.baseline = std::move(*snapshot);
    }
    if (setup.baseline.digests.empty()) {
      setup.warnings.push_back(
          fmt::format("--protect {}: no file matches", fmt::join(config.verify.protect, ", ")));
    }
    setup.entries.push_back(
        {std::make_unique<verify::ProtectedPathsVerifier>(config.verify.protect, setup.baseline),
         loop::ErrorPolicy::fail_closed});
  }
  if (auto added = add_checks(setup, config, workspace); !added) {
    return tl::unexpected(added.error());
  }
  for (const auto& command : config.verify.commands) {
    verify::CommandOptions options;
    options.command = command;
    options.timeout = std::chrono::seconds(config.verify.command_timeout_s);
    options.excerpt_chars = static_cast<std::size_t>(config.verify.excerpt_chars);
    options.runs = config.verify.runs;
    options.quorum = config.verify.quorum;
    if (auto added = add(setup, verify::make_command_verifier(options, runner),
                         policy_of(config.verify.command_policy));
        !added) {
      return tl::unexpected(added.error());
    }
  }
  for (const auto& program : config.verify.exec) {
    verify::ExecOptions options;
    options.program = program;
    options.timeout = std::chrono::seconds(config.verify.exec_timeout_s);
    if (auto added =
            add(setup, verify::make_exec_verifier(options, runner), loop::ErrorPolicy::fail_closed);
        !added) {
      return tl::unexpected(added.error());
    }
  }
  if (config.evidence.enabled) {
    verify::EvidenceOptions options;
    options.marker = config.evidence.marker;
    options.trusted_tools = config.evidence.tools;
    options.verify_commands = config.verify.commands;
    options.require_evidence = config.evidence.require;
    setup.entries.push_back(
        {std::make_unique<verify::EvidenceVerifier>(options), loop::ErrorPolicy::fail_closed});
  }
  if (auto added = add_judge(setup, config, clock); !added) {
    return tl::unexpected(added.error());
  }
  return setup;
}

Result<JudgeModel> add_judge_model(VerifierSetup& setup, const Config& config, std::string model,
                                   Clock& clock) {
  if (model == "agent") {
    model = config.model;
  }
  const auto judge_spec = llm::parse_model_spec(model);
  const auto agent_spec = llm::parse_model_spec(config.model);
  if (!judge_spec) {
    return tl::unexpected(judge_spec.error());
  }
  if (agent_spec && judge_spec->provider == agent_spec->provider &&
      judge_spec->provider != "scripted") {
    setup.warnings.push_back(fmt::format(
        "the judge ({}) is from the agent's own model family; a judge from another family (e.g. "
        "--judge {}) checks more independently",
        model,
        judge_spec->provider == "anthropic" ? "openai/gpt-4.1" : "anthropic/claude-sonnet-4-5"));
  }
  // A judge on the agent's provider talks to the agent's server unless told otherwise.
  const bool same_server =
      config.judge.base_url.empty() && agent_spec && agent_spec->provider == judge_spec->provider;
  auto settings =
      provider_config(model, same_server ? config.base_url : config.judge.base_url, config.http);
  if (!settings) {
    return tl::unexpected(settings.error());
  }
  auto& transport = setup.transports.emplace_back(std::make_unique<http::CurlTransport>());
  auto provider = llm::make_provider(*settings, *transport, clock);
  if (!provider) {
    return tl::unexpected(provider.error());
  }
  llm::Provider& made = *setup.providers.emplace_back(std::move(*provider));
  return JudgeModel{&made, judge_spec->model, model};
}

} // namespace ralph::cli
