#pragma once

#include "ralph/core/settings.h"
#include "ralph/llm/provider.h"
#include "ralph/llm/provider_config.h"
#include "ralph/verify/judge_client.h"
#include "ralph/verify/judge_context.h"
#include "ralph/verify/verifier.h"

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::verify {

// The LLM judge: one tool-less, non-streaming model call per attempt, over a budgeted context
// (see assemble_judge_context) with the user's rules files: as read once at the start of the
// run (`rules`), so an agent that rewrites AGENTS.md is still judged by the user's rules; without
// them, read from the attempt's workspace at each verdict.
// Maps the outcome to a Verdict: pass, fail with the judge's category and feedback, or error —
// "timeout" past settings.timeout, "provider_error" with the provider's message, "malformed" for
// output that is no clear verdict (never a silent pass), "context_budget" when the request alone
// is too long, "cancelled" when `cancel` fired. Verdict::usage is the call's usage and
// Verdict::model the model's label. The provider must outlive the verifier and be used by nothing
// else; concurrent verify() calls on one instance are serialised (a Provider is not thread-safe).
class JudgeVerifier final : public Verifier {
public:
  // `model` is what `provider` serves. The call is tool-less, at temperature 0, at most
  // `settings.max_tokens` long, within `settings.timeout` (retries included); the prompt fits
  // `settings.context_chars`, the rules files `settings.rules_chars`.
  JudgeVerifier(llm::Provider& provider, llm::ModelSpec model, JudgeSettings settings,
                std::optional<std::vector<JudgeRulesFile>> rules = std::nullopt);

  std::string name() const override { return "judge"; }
  VerifierKind kind() const override { return VerifierKind::judge; }
  Verdict verify(const Attempt& attempt, const CancelToken& cancel) override;

private:
  JudgeClient m_client;
  std::optional<std::vector<JudgeRulesFile>> m_rules;
};

} // namespace ralph::verify
