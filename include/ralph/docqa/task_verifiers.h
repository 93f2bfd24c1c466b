#pragma once

#include "ralph/core/settings.h"
#include "ralph/docqa/document_agents.h"
#include "ralph/llm/provider.h"
#include "ralph/verify/judge_client.h"
#include "ralph/verify/verifier.h"

#include <cstddef>
#include <string>

namespace ralph::docqa {

// Task mode's hard checks ("task checks"): the output and the memory update the ledger holds are
// non-empty and at least settings.min_output_chars / min_memory_chars long (code points); the
// memory update only when there is a memory file to keep it. Fail category `check_failed`.
class TaskChecksVerifier final : public verify::Verifier {
public:
  TaskChecksVerifier(const TaskLedger& ledger, TaskSettings settings)
      : m_ledger(ledger), m_settings(std::move(settings)) {}
  std::string name() const override { return "task checks"; }
  verify::VerifierKind kind() const override { return verify::VerifierKind::checks; }
  verify::Verdict verify(const verify::Attempt& attempt, const CancelToken& cancel) override;

private:
  const TaskLedger& m_ledger;
  TaskSettings m_settings;
};

// The task judge ("task judge"): does the output substantively complete the task, given the
// reader's brief and the memory? One call answered like the run judge (PASS / FAIL [category]:
// feedback, or the structured form), parsed as strictly. Errors as the run judge's. The brief and
// the memory are trimmed to fit settings.context_chars, the task never. The provider and the
// ledger must outlive the verifier.
class TaskJudgeVerifier final : public verify::Verifier {
public:
  TaskJudgeVerifier(llm::Provider& provider, const TaskLedger& ledger, llm::ModelSpec model,
                    JudgeSettings settings)
      : m_ledger(ledger), m_client(provider, std::move(model), std::move(settings)) {}
  std::string name() const override { return "task judge"; }
  verify::VerifierKind kind() const override { return verify::VerifierKind::judge; }
  verify::Verdict verify(const verify::Attempt& attempt, const CancelToken& cancel) override;

private:
  const TaskLedger& m_ledger;
  verify::JudgeClient m_client;
};

} // namespace ralph::docqa
