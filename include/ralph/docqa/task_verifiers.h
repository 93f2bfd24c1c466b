#pragma once

#include "ralph/docqa/document_agents.h"
#include "ralph/llm/provider.h"
#include "ralph/verify/verifier.h"

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace ralph::docqa {

struct TaskChecksOptions {
  std::size_t min_output_chars = 40;
  std::size_t min_memory_chars = 10; // 0: a memory update is not required
};

// Task mode's hard checks ("task checks"): the output and the memory update the ledger holds are
// non-empty and long enough (code points). Fail category `check_failed`.
class TaskChecksVerifier final : public verify::Verifier {
public:
  TaskChecksVerifier(const TaskLedger& ledger, TaskChecksOptions options)
      : m_ledger(ledger), m_options(options) {}
  std::string name() const override { return "task checks"; }
  verify::Verdict verify(const verify::Attempt& attempt, const CancelToken& cancel) override;

private:
  const TaskLedger& m_ledger;
  TaskChecksOptions m_options;
};

struct TaskJudgeOptions {
  std::string model;       // as the provider expects it
  std::string model_label; // "provider/model", for cost
  int max_tokens = 512;
  std::chrono::milliseconds timeout{30'000};
  bool structured = true;
  std::size_t context_chars = 32000; // the brief and memory are trimmed to fit, the task never
};

// The task judge ("task judge"): does the output substantively complete the task, given the
// reader's brief and the memory? One call answered like the run judge (PASS / FAIL [category]:
// feedback, or the structured form), parsed as strictly. Errors as the run judge's.
class TaskJudgeVerifier final : public verify::Verifier {
public:
  TaskJudgeVerifier(llm::Provider& provider, const TaskLedger& ledger, TaskJudgeOptions options)
      : m_provider(provider), m_ledger(ledger), m_options(std::move(options)) {}
  std::string name() const override { return "task judge"; }
  verify::Verdict verify(const verify::Attempt& attempt, const CancelToken& cancel) override;

private:
  llm::Provider& m_provider;
  const TaskLedger& m_ledger;
  TaskJudgeOptions m_options;
  std::mutex m_mutex;
};

} // namespace ralph::docqa
