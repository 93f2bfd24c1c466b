#pragma once

#include "ralph/core/settings.h"
#include "ralph/docqa/qa_checks.h"
#include "ralph/llm/provider.h"
#include "ralph/verify/judge_client.h"
#include "ralph/verify/verifier.h"

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace ralph::docqa {

// The evidence the judge sees: windows around the first occurrences of every quote found in the
// document (at any level: the hard checks rule on the level), `window_chars` on each side,
// merged where they overlap.
std::vector<Span> qa_evidence_windows(const QaReport& report, const GroundedDocument& document,
                                      std::size_t window_chars);

// The judge's question: the user's question, the numbered bullets, and the numbered evidence
// windows with their places in the document, within `context_chars` (later windows are
// dropped past it).
std::string qa_judge_prompt(std::string_view question, const QaAnswer& answer,
                            const std::vector<Span>& windows, const GroundedDocument& document,
                            std::size_t context_chars);

// The semantic judge of seed 003, better bounded: does the evidence support each bullet? The
// model answers {"ok": bool, "issues": [{"bullet": N, "issue": "..."}]}; issues become a fail
// (`unsupported`) naming the bullets. Output that is no such object, or says ok while listing
// issues, is an `error` (`malformed`), never a pass. An answer that cannot be parsed, or has no
// quote found in the document, is not judged (`error`, category `not_judged`): the hard checks
// report it. The call follows `settings` (its size, timeout, structured output); the evidence is
// `window_chars` on each side of a quote. The provider and the checker must outlive the
// verifier; calls on one instance are serialised.
class QaJudgeVerifier final : public verify::Verifier {
public:
  QaJudgeVerifier(llm::Provider& provider, const QaChecker& checker, llm::ModelSpec model,
                  JudgeSettings settings, std::size_t window_chars)
      : m_checker(checker), m_client(provider, std::move(model), std::move(settings)),
        m_window_chars(window_chars) {}

  std::string name() const override { return "qa judge"; }
  verify::VerifierKind kind() const override { return verify::VerifierKind::judge; }
  verify::Verdict verify(const verify::Attempt& attempt, const CancelToken& cancel) override;

private:
  const QaChecker& m_checker;
  verify::JudgeClient m_client;
  std::size_t m_window_chars;
};

} // namespace ralph::docqa
