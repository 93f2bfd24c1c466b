#pragma once

#include "ralph/loop/outer_loop.h"

#include <optional>
#include <set>
#include <string>

namespace ralph::loop {

// Notices attempts that stopped making progress: two in a row with the same answer and the same
// verdicts (the same failing tests included; for a failing command no runner's summary was found
// in, the same output), or `stall_after` in a row whose failing commands failed the same way (same
// exit codes and output excerpts). Outputs are compared without the durations and addresses that
// differ from run to run. Progress by the verifiers' own measure
// is never a stall: an attempt with fewer failing tests than the one before
// (verify::Verdict::tests), or a set of failing tests that shrank, starts the count afresh however
// alike the rest looks.
class StallDetector {
public:
  explicit StallDetector(int stall_after) : m_stall_after(stall_after) {}

  // The reason to stop as `stalled`, if this attempt shows it.
  std::optional<std::string> observe(const AttemptRecord& attempt);

private:
  // Whether the verdicts' failing tests went down since the previous attempt with counts.
  bool made_progress(const AttemptRecord& attempt);

  int m_stall_after;
  std::optional<int> m_failing_tests;
  std::set<std::string> m_failing_names;
  std::optional<std::string> m_last_signature;
  std::string m_command_failures;
  int m_same_command_failures = 0;
};

} // namespace ralph::loop
