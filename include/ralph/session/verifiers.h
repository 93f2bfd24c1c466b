#pragma once

#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/core/redactor.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/session/models.h"
#include "ralph/tools/process_runner.h"
#include "ralph/verify/judge_context.h"
#include "ralph/verify/protected_paths.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ralph::session {

// The verifiers of a session, in the order they report, and what to warn its person about.
struct VerifierSetup {
  std::vector<loop::VerifierEntry> entries;
  std::vector<std::string> warnings;  // e.g. a judge of the agent's own family
  verify::ProtectedSnapshot baseline; // what --protect covered before the first attempt
  // The user's rules files (AGENTS.md, SOUL.md; HEARTBEAT.md first on heartbeat runs) as read
  // before the first attempt: the agent's system prompt and the judge both use this copy.
  std::vector<verify::JudgeRulesFile> rules;
};

// The verifiers `config` asks for: protected paths, checks, commands, external programs,
// evidence, and the judge when `with_judge` (document runs bring their own). Bad settings (an
// invalid regex, a missing schema file, a judge model without its key) are usage or config
// errors. `baseline` is the protected files' state recorded before a resumed session's first
// attempt; without it the workspace is snapshotted now. Command output is masked with
// `redactor`. `runner` and `models` must outlive the verifiers.
Result<VerifierSetup> build_verifiers(const Config& config, const std::filesystem::path& workspace,
                                      tools::ProcessRunner& runner, ModelProviders& models,
                                      const std::optional<verify::ProtectedSnapshot>& baseline,
                                      bool with_judge, const Redactor& redactor);

// The judge's model: `config.judge.model` ("agent" or empty: the agent's), its own provider, with
// a warning in `setup` when it is of the agent's own family.
Result<Model> judge_model(const Config& config, ModelProviders& models, VerifierSetup& setup);

} // namespace ralph::session
