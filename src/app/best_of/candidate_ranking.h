#pragma once

#include "ralph/core/status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ralph::app {

// What best of N ranks one attempt by, measured after it ended.
struct CandidateScore {
  int index = 0;                    // 1-based, as the attempt's folder and branch are named
  bool passed = false;              // completed and every final verdict passed
  int passing_verdicts = 0;         // in its last verified attempt
  std::optional<int> tests_passed;  // what the test runners behind those verdicts counted; none:
                                    // no runner said (go test without -v names only failures)
  std::optional<int> changed_lines; // added + removed; none: not measured (never applied)
  std::optional<double> cost_usd;   // none: some model had no price
  std::int64_t tokens = 0;          // input + output
};

// The candidates best first, the one to apply (only ever a passing one), and the rule that put
// the first ahead of the second, for a person: "only one passed", "fewer changed lines: 12 vs
// 40", "lower cost: $0.0012 vs $0.0030", "fewer tokens: 900 vs 1500", "the lower index (a tie
// on every measure)"; when none passed, why the best of them is first.
struct Ranking {
  std::vector<int> order; // indexes, best first
  std::optional<int> winner;
  std::string reason;
};

// Passing candidates (with a measured change) first, by fewer changed lines, then lower cost
// (when every candidate has one), then fewer tokens, then the lower index; the others after them,
// by more passing verdicts, then more passing tests (when both are known), then the same
// tie-breaks. Pure; `candidates` must not be empty.
Ranking rank_candidates(const std::vector<CandidateScore>& candidates);

} // namespace ralph::app
