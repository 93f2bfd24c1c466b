#pragma once

#include "ralph/loop/outer_loop.h"

#include <vector>

namespace ralph::loop {

// Runs every verifier on `attempt`: the independent ones at the same time on helper threads, the
// others one after another on this thread. Returns the verdicts in the verifiers' order, each
// named after its verifier and of its kind, with `policy` filled in for errors and `tests` from
// the feedback when the verifier gave none. A verifier that throws despite its contract gives an
// `error` verdict.
std::vector<verify::Verdict> run_verifiers(std::vector<VerifierEntry>& verifiers,
                                           const verify::Attempt& attempt,
                                           const CancelToken& cancel);

} // namespace ralph::loop
