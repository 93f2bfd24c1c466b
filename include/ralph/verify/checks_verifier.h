#pragma once

#include "ralph/core/error.h"
#include "ralph/verify/verifier.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ralph::verify {

// Deterministic rules on the visible answer (`attempt.answer`). Each rule that is set is checked.
struct ChecksOptions {
  std::vector<std::string> must_match;     // RE2 patterns; each must match somewhere
  std::vector<std::string> must_not_match; // RE2 patterns; none may match anywhere
  std::optional<std::size_t> min_chars;    // length in Unicode code points, not bytes
  std::optional<std::size_t> max_chars;
  bool json = false;       // the answer is JSON, bare or as the one ```json fenced block it is
  std::string json_schema; // JSON Schema text (see json_schema.h) the answer conforms to;
                           // implies `json`
  std::optional<std::size_t> min_bullets; // lines starting with `-`, `*`, `•`, `1.` or `1)`
  std::optional<std::size_t> max_bullets; // after optional indentation, outside code fences
};

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
  Verdict verify(const Attempt& attempt, const CancelToken& cancel) override;

private:
  std::unique_ptr<const Rules> m_rules;
};

// A verifier for `options`, or an ErrorKind::config error naming the bad rule: an invalid
// pattern (with RE2's message), an invalid schema, a minimum above its maximum.
Result<std::unique_ptr<ChecksVerifier>> make_checks_verifier(ChecksOptions options);

} // namespace ralph::verify
