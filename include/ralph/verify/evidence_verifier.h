#pragma once

#include "ralph/verify/verifier.h"

#include <cstddef>
#include <string>
#include <vector>

namespace ralph::verify {

struct EvidenceOptions {
  std::string marker = "<promise>DONE</promise>";
  std::vector<std::string> trusted_tools{"shell"}; // whose results count as evidence
  // When not empty, only trusted calls whose command contains one of these count: the agent
  // cannot pass with `true` or `echo ok`.
  std::vector<std::string> verify_commands;
  bool require_evidence = true; // false: the marker alone completes (not recommended)
  std::size_t excerpt_chars = 2000;
};

// The verifier-first contract: an attempt is complete only when its answer ends with the
// completion marker AND the latest call of a trusted tool in this attempt passed (exit code 0,
// read from the tool's structured result, never from its text) with no change to the workspace
// after it. A marker without such evidence, with failing evidence, or with evidence older than
// the last change is a `fail` (`incomplete`, `no_evidence` or `test_failed`). Needs the loop to
// mark tool calls that changed the workspace (ToolRecord::changed_workspace).
class EvidenceVerifier final : public Verifier {
public:
  explicit EvidenceVerifier(EvidenceOptions options);
  std::string name() const override { return "evidence"; }
  Verdict verify(const Attempt& attempt, const CancelToken& cancel) override;

private:
  bool counts_as_evidence(const ToolRecord& call) const;

  EvidenceOptions m_options;
};

} // namespace ralph::verify
