#pragma once

#include "ralph/core/error.h"
#include "ralph/verify/verifier.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ralph::verify {

// SHA-256 of every workspace file matching the globs (tools::Glob rules), by relative path.
// `.git` and `.ralph` are never walked; symlinks are not followed. In a git work tree, files git
// ignores (`git ls-files -o -i --exclude-standard`: `__pycache__/`, build outputs) are left
// out unless a glob names them: one whose last part is more than `*` or `**` (`*.pyc`,
// `tests/__pycache__/x.pyc`; not `tests/**`).
struct ProtectedSnapshot {
  std::map<std::string, std::string> digests;
};

Result<ProtectedSnapshot> snapshot_protected(const std::filesystem::path& workspace,
                                             const std::vector<std::string>& globs);

// Files the verifiers depend on (the tests themselves) must not change: an attempt that
// modified, deleted or added a protected file fails with `rule_violation`, naming each change.
// The baseline is taken once, before the first attempt. Only the agent's changes count: the
// files are compared as they were before this attempt's verifiers ran (before_verifiers), and
// what verifiers changed (a test run's caches) becomes part of what later attempts are compared
// with (after_verifiers).
class ProtectedPathsVerifier final : public Verifier {
public:
  ProtectedPathsVerifier(std::vector<std::string> globs, ProtectedSnapshot baseline);
  std::string name() const override { return "protected paths"; }
  VerifierKind kind() const override { return VerifierKind::protected_paths; }
  Verdict verify(const Attempt& attempt, const CancelToken& cancel) override;
  void before_verifiers(const Attempt& attempt) override;
  void after_verifiers(const Attempt& attempt) override;

private:
  std::vector<std::string> m_globs;
  ProtectedSnapshot m_expected; // the baseline, with the verifiers' own changes applied
  std::optional<Result<ProtectedSnapshot>> m_before; // taken before this attempt's verifiers
};

} // namespace ralph::verify
