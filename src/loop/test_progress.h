#pragma once

#include "ralph/verify/verdict.h"

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ralph::loop {

// A test that passed in an earlier attempt and fails now.
struct Regression {
  std::string test;
  int passed_in = 0; // the latest attempt in which it passed
};

// What one verdict's tests did since the verifier's previous verdict.
struct TestChange {
  std::optional<int> failed_before; // failing tests in the verifier's previous verdict with counts
  std::vector<Regression> regressions;
};

// Follows each verifier's test counts (verify::Verdict::tests) across attempts, by verifier
// name, so the loop can show "failing: 3 → 2" and tell the agent which tests it broke.
class TestProgress {
public:
  // Records the verdicts of attempt `iteration`; returns what changed, one entry per verdict.
  std::vector<TestChange> observe(int iteration, const std::vector<verify::Verdict>& verdicts);

private:
  struct History {
    std::optional<int> failed;                           // in the latest verdict with counts
    std::unordered_map<std::string, int> last_passed_in; // test name -> attempt
  };
  std::map<std::string, History> m_by_verifier;
};

// The lines the agent is told about a verdict's tests: "failing tests: 3 → 2" and one
// "regression: NAME passed in attempt N, fails now" per regression (the first few, then a count).
std::string describe_test_change(const verify::Verdict& verdict, const TestChange& change);

} // namespace ralph::loop
