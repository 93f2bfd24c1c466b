#pragma once

#include "ralph/core/cancel.h"
#include "ralph/verify/attempt.h"
#include "ralph/verify/verdict.h"

#include <string>

namespace ralph::verify {

// An independent check of an attempt. The loop knows verifiers only through this interface;
// library users implement it to add their own. verify() reports every failure as a Verdict
// (`error` when the check could not be made) and never throws. Verifiers whose `independent()`
// is true may run on other threads at the same time as each other, so they must not share
// mutable state without guarding it.
class Verifier {
public:
  virtual ~Verifier() = default;
  // A short stable name for events and results, e.g. "command: make check".
  virtual std::string name() const = 0;
  virtual VerifierKind kind() const { return VerifierKind::custom; }
  virtual bool independent() const { return true; }
  virtual Verdict verify(const Attempt& attempt, const CancelToken& cancel) = 0;
  // Called on the loop's thread before any verifier of an attempt runs, and again once all have
  // finished. A verifier that compares workspace states takes its snapshots here, so what the
  // other verifiers write (caches, build outputs) is not taken for the agent's work.
  virtual void before_verifiers(const Attempt& attempt) { (void)attempt; }
  virtual void after_verifiers(const Attempt& attempt) { (void)attempt; }
};

} // namespace ralph::verify
