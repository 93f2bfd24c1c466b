#pragma once

#include "ralph/core/clock.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/http/transport.h"
#include "ralph/llm/provider.h"
#include "ralph/llm/provider_config.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/tools/process_runner.h"
#include "ralph/verify/protected_paths.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace ralph::cli {

// The provider settings for `model` ("provider/model"), with its key from the usual variable.
Result<llm::ProviderConfig> provider_config(const std::string& model, const std::string& base_url,
                                            const HttpSettings& http);

// The verifiers a configuration asks for, in the order they report: protected paths, checks,
// commands, external programs, evidence, judge. Owns what the judge needs (its own transport
// and provider, since verifiers run beside each other).
struct VerifierSetup {
  std::vector<loop::VerifierEntry> entries;
  std::vector<std::string> warnings; // for the terminal, e.g. a judge of the agent's own family
  std::vector<std::unique_ptr<http::Transport>> transports;
  std::vector<std::unique_ptr<llm::Provider>> providers;
  verify::ProtectedSnapshot baseline; // what --protect covered before the first attempt
};

// `runner` and `clock` must outlive the setup. Bad settings (an invalid regex, a missing schema
// file, a judge model without its key) are usage or config errors. `baseline` is the protected
// files' state recorded before a resumed session's first attempt; without it the workspace is
// snapshotted now.
Result<VerifierSetup> build_verifiers(const Config& config, const std::filesystem::path& workspace,
                                      tools::ProcessRunner& runner, Clock& clock,
                                      const std::optional<verify::ProtectedSnapshot>& baseline);

// A judge's model, owned by `setup`.
struct JudgeModel {
  llm::Provider* provider = nullptr;
  std::string model; // as the provider expects it
  std::string label; // "provider/model"
};

// Makes the provider for a judge on `model` ("agent": the agent's model) and keeps it in `setup`,
// warning there when it is of the agent's own family.
Result<JudgeModel> add_judge_model(VerifierSetup& setup, const Config& config, std::string model,
                                   Clock& clock);

} // namespace ralph::cli
