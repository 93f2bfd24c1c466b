#pragma once

#include "ralph/core/settings.h"
#include "ralph/verify/verifier.h"

#include <cstddef>
#include <string>
#include <vector>

namespace ralph::verify {

// The verifier-first contract: an attempt is complete only when its answer ends with the
// completion marker AND the latest call of a trusted tool in this attempt passed (exit code 0,
// read from the tool's structured result, never from its text) with no change to the workspace
// after it. A marker without such evidence, with failing evidence, or with evidence older than
// the last change is a `fail` (`incomplete`, `no_evidence` or `test_failed`). Needs the loop to
// mark tool calls that changed the workspace (ToolRecord::changed_workspace).
class EvidenceVerifier final : public Verifier {
public:
  // `settings.tools` are the trusted tools, `settings.require` false lets the marker alone
  // complete (not recommended). When `verify_commands` is not empty, only trusted calls whose
  // command contains one of them count: the agent cannot pass with `true` or `echo ok`.
  EvidenceVerifier(EvidenceSettings settings, std::vector<std::string> verify_commands);
  std::string name() const override { return "evidence"; }
  VerifierKind kind() const override { return VerifierKind::evidence; }
  Verdict verify(const Attempt& attempt, const CancelToken& cancel) override;

private:
  bool counts_as_evidence(const ToolRecord& call) const;

  EvidenceSettings m_settings;
  std::vector<std::string> m_verify_commands;
};

} // namespace ralph::verify
