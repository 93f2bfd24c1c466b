#pragma once

#include "ralph/agent/agent.h"
#include "ralph/core/cancel.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/docqa/qa_checks.h"
#include "ralph/session/models.h"
#include "ralph/session/verifiers.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace ralph::session {

// The agent and verifiers of a document session (`ralph qa`, `ralph task`): the document
// (`config.document.path`) memory-mapped and explored in the Lua sandbox by the agent's model
// (RLM); the answer checked by the run's own verifiers plus, for QA, the hard checks and the
// evidence judge, for a task, the task checks and judge. Owns what its agent and verifiers point
// at; `models` and `runner` must outlive it.
class DocumentRun {
public:
  // Sets `config.loop.feedback` to append: each attempt starts from the question, the last
  // answer and its failures (a compact continuation prompt would replace the question). A
  // document that cannot be read is a usage error naming --doc.
  static Result<std::unique_ptr<DocumentRun>>
  prepare(Config& config, const std::filesystem::path& workspace, const std::string& goal,
          ModelProviders& models, tools::ProcessRunner& runner, const CancelToken& cancel,
          const std::optional<verify::ProtectedSnapshot>& baseline, const Redactor& redactor);
  ~DocumentRun();
  DocumentRun(const DocumentRun&) = delete;
  DocumentRun& operator=(const DocumentRun&) = delete;

  agent::Agent& agent() { return *m_agent; }
  // Taken once, by the loop that runs them.
  VerifierSetup take_verifiers() { return std::move(m_verifiers); }
  // The QA hard checks, to show a grounded answer's quotes where they occur; null for a task.
  const docqa::QaChecker* qa_checker() const;

  struct Parts; // the document, its explorer and checkers, in the order they refer to each other

private:
  DocumentRun();

  std::unique_ptr<Parts> m_parts;
  std::unique_ptr<agent::Agent> m_agent;
  VerifierSetup m_verifiers;
};

} // namespace ralph::session
