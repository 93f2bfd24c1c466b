#pragma once

#include "ralph/docqa/qa_checks.h"
#include "ralph/llm/provider.h"
#include "ralph/verify/verifier.h"

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace ralph::docqa {

struct QaJudgeOptions {
  std::string model;       // as the provider expects it, without the "provider/" prefix
  std::string model_label; // "provider/model", reported in Verdict::model for cost
  int max_tokens = 512;
  std::chrono::milliseconds timeout{30'000};
  bool structured = true;         // ask for the JSON verdict through the provider
  std::size_t window_chars = 220; // evidence on each side of a quote's occurrence
  std::size_t occurrences_per_quote = 3;
  std::size_t context_chars = 32000; // the request's text; later windows are dropped past it
};

// The evidence the judge sees: windows around the first occurrences of every quote found in the
// document (at any level: the hard checks rule on the level), merged where they overlap.
std::vector<Span> qa_evidence_windows(const QaReport& report, const GroundedDocument& document,
                                      const QaJudgeOptions& options);

// The judge's question: the user's question, the numbered bullets, and the numbered evidence
// windows with their places in the document, within options.context_chars.
std::string qa_judge_prompt(std::string_view question, const QaAnswer& answer,
                            const std::vector<Span>& windows, const GroundedDocument& document,
                            const QaJudgeOptions& options);

// The semantic judge of seed 003, better bounded: does the evidence support each bullet? The
// model answers {"ok": bool, "issues": [{"bullet": N, "issue": "..."}]}; issues become a fail
// (`unsupported`) naming the bullets. Output that is no such object, or says ok while listing
// issues, is an `error` (`malformed`), never a pass. An answer that cannot be parsed, or has no
// quote found in the document, is not judged (`error`, category `not_judged`): the hard checks
// report it. The provider and the checker must outlive the verifier; calls on one instance are
// serialised.
class QaJudgeVerifier final : public verify::Verifier {
public:
  QaJudgeVerifier(llm::Provider& provider, const QaChecker& checker, QaJudgeOptions options)
      : m_provider(provider), m_checker(checker), m_options(std::move(options)) {}

  std::string name() const override { return "qa judge"; }
  verify::Verdict verify(const verify::Attempt& attempt, const CancelToken& cancel) override;

private:
  llm::Provider& m_provider;
  const QaChecker& m_checker;
  QaJudgeOptions m_options;
  std::mutex m_mutex;
};

} // namespace ralph::docqa
