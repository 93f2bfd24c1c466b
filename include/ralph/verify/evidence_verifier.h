#pragma once

#include "ralph/core/settings.h"
#include "ralph/verify/verifier.h"

#include <cstddef>
#include <optional>
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
  // complete (not recommended). When `verify_commands` is not empty, only trusted calls that run
  // one of them itself count (`check_command.h`: `echo 'sh test.sh'` does not); otherwise calls
  // whose command matches one of `settings.commands` (a trusted tool without a `command`
  // argument counts by itself). The agent cannot pass with `true`, `echo ok` or `cat app.txt`.
  EvidenceVerifier(EvidenceSettings settings, std::vector<std::string> verify_commands);
  std::string name() const override { return "evidence"; }
  VerifierKind kind() const override { return VerifierKind::evidence; }
  Verdict verify(const Attempt& attempt, const CancelToken& cancel) override;

private:
  // Why `call` counts as a check ("a run of the verify command `make check`"), or nullopt.
  std::optional<std::string> counts_as_evidence(const ToolRecord& call) const;
  // What would count, for the agent's feedback.
  std::string what_counts() const;

  EvidenceSettings m_settings;
  std::vector<std::string> m_verify_commands;
};

} // namespace ralph::verify
