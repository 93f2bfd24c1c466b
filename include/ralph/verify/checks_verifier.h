#pragma once

#include "ralph/core/error.h"
#include "ralph/core/settings.h"
#include "ralph/verify/verifier.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ralph::verify {

// Deterministic rules on the visible answer (`attempt.answer`), as ChecksSettings set them:
// must_match / must_not_match are RE2 patterns that must each match somewhere / none match
// anywhere; min_chars / max_chars count Unicode code points, not bytes; `json` wants JSON, bare
// or as the one ```json fenced block; min_bullets / max_bullets count lines starting with `-`,
// `*`, `•`, `1.` or `1)` after optional indentation, outside code fences. A bound of 0 is none.
// Checks every rule and returns one verdict: pass, or fail (`check_failed`) listing every broken
// rule, numbered, each with what was expected and what was found ("expected 3–7 bullets, found
// 9"). Patterns use RE2 syntax, unanchored: `(?m)` makes ^ and $ match at lines, `(?i)` ignores
// case, `(?s)` lets . match newlines. Immutable; verify() may run on many threads at once.
class ChecksVerifier final : public Verifier {
public:
  struct Rules;

  // Use make_checks_verifier, which validates the options.
  explicit ChecksVerifier(std::unique_ptr<const Rules> rules);
  ~ChecksVerifier() override;

  // "checks"
  std::string name() const override;
  VerifierKind kind() const override { return VerifierKind::checks; }
  Verdict verify(const Attempt& attempt, const CancelToken& cancel) override;

private:
  std::unique_ptr<const Rules> m_rules;
};

// A verifier for `settings`, and a JSON Schema's text (see json_schema.h) the answer must conform
// to when not empty (implies `json`; settings.json_schema, a path, is the caller's to read), or an
// ErrorKind::config error naming the bad rule: an invalid pattern (with RE2's message), an
// invalid schema, a minimum above its maximum.
Result<std::unique_ptr<ChecksVerifier>> make_checks_verifier(ChecksSettings settings,
                                                             std::string_view json_schema = {});

} // namespace ralph::verify
