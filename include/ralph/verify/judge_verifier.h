#pragma once

#include "ralph/llm/provider.h"
#include "ralph/verify/verifier.h"

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::verify {

struct JudgeOptions {
  std::string model;       // as the provider expects it, without the "provider/" prefix
  std::string model_label; // "provider/model", reported in Verdict::model for cost
  int max_tokens = 512;
  std::optional<double> temperature = 0.0; // nullopt: not sent (models that only take the default)
  std::chrono::milliseconds timeout{30'000};
  std::size_t context_chars = 32000; // system + user prompt, bytes of UTF-8
  std::size_t answer_chars = 12000;
  std::size_t rules_chars = 8000;
  std::size_t feedback_chars = 4000;
  int history_turns = 5;
  std::vector<std::string> rules_files = {"AGENTS.md", "SOUL.md"}; // + HEARTBEAT.md on heartbeats
  // Ask for the structured verdict through ChatRequest::json_schema. Either form is parsed
  // regardless, because some servers ignore the schema.
  bool structured = true;
};

// The LLM judge: one tool-less, non-streaming model call per attempt, over a budgeted context
// (see assemble_judge_context) with the user's rules files read from the attempt's workspace.
// Maps the outcome to a Verdict: pass, fail with the judge's category and feedback, or error —
// "timeout" past options.timeout, "provider_error" with the provider's message, "malformed" for
// output that is no clear verdict (never a silent pass), "context_budget" when the request alone
// is too long, "cancelled" when `cancel` fired. Verdict::usage is the call's usage and
// Verdict::model options.model_label. The provider must outlive the verifier and be used by nothing
// else; concurrent verify() calls on one instance are serialised (a Provider is not thread-safe).
class JudgeVerifier final : public Verifier {
public:
  JudgeVerifier(llm::Provider& provider, JudgeOptions options);

  std::string name() const override { return "judge"; }
  Verdict verify(const Attempt& attempt, const CancelToken& cancel) override;

  // The error category for a request too long for options.context_chars.
  static constexpr std::string_view k_context_budget = "context_budget";

private:
  llm::Provider& m_provider;
  JudgeOptions m_options;
  std::mutex m_mutex;
};

} // namespace ralph::verify
