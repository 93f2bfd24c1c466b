#pragma once

#include "ralph/core/error.h"
#include "ralph/verify/verifier.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ralph::verify {

// SHA-256 of every workspace file matching the globs (tools::Glob rules), by relative path.
// `.git` and `.ralph` are never walked; symlinks are not followed.
struct ProtectedSnapshot {
  std::map<std::string, std::string> digests;
};

Result<ProtectedSnapshot> snapshot_protected(const std::filesystem::path& workspace,
                                             const std::vector<std::string>& globs);

// Files the verifiers depend on (the tests themselves) must not change: an attempt that
// modified, deleted or added a protected file fails with `rule_violation`, naming each change.
// The baseline is taken once, before the first attempt.
class ProtectedPathsVerifier final : public Verifier {
public:
  ProtectedPathsVerifier(std::vector<std::string> globs, ProtectedSnapshot baseline);
  std::string name() const override { return "protected paths"; }
  VerifierKind kind() const override { return VerifierKind::protected_paths; }
  Verdict verify(const Attempt& attempt, const CancelToken& cancel) override;

private:
  std::vector<std::string> m_globs;
  ProtectedSnapshot m_baseline;
};

} // namespace ralph::verify
