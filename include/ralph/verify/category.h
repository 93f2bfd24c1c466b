#pragma once

#include "ralph/core/enum_names.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace ralph::verify {

// Why a verdict is not a pass. The categories ralph knows have fixed meanings (the loop stops as
// `blocked` on `blocked`, never forgives `cancelled`); a judge or an external program may name
// others, which are kept as written.
class Category {
public:
  enum Known : std::uint8_t {
    none, // a pass
    goal_missed,
    incomplete,
    rule_violation,
    tone_mismatch,
    refusal,
    test_failed,
    check_failed,
    no_evidence,
    blocked,        // the goal cannot be reached as asked
    timeout,        // the check ran out of time
    cancelled,      // the check was stopped (Ctrl-C, a budget)
    not_runnable,   // command not found, spawn error
    malformed,      // unparsable verifier output
    provider_error, // the judge's model failed
    context_budget, // the judge's request alone is too long
    not_judged,     // a judge left part of the answer unjudged
    unsupported,    // a judge found a claim the evidence does not support
    verifier_error, // an external program said `error` without a category
    internal,       // the verifier threw
    other,          // a name of the verifier's own
  };

  Category(Known known = none) : m_known(known) {} // NOLINT(google-explicit-constructor)

  // The category a verifier's output names: a known name is that category, any other is kept.
  static Category named(std::string_view name);

  Known known() const { return m_known; }
  // The stable name ("" for none), as in the record, events and feedback.
  std::string_view name() const;

  bool operator==(const Category&) const = default;

private:
  Known m_known = none;
  std::string m_other; // the name, when `other`
};

} // namespace ralph::verify
