#pragma once

#include "ralph/loop/outer_loop.h"

#include <optional>
#include <string>

namespace ralph::loop {

// Notices attempts that stopped making progress: two in a row with the same answer and the same
// verdicts, or `stall_after` in a row whose failing commands failed the same way (same exit
// codes and output excerpts).
class StallDetector {
public:
  explicit StallDetector(int stall_after) : m_stall_after(stall_after) {}

  // The reason to stop as `stalled`, if this attempt shows it.
  std::optional<std::string> observe(const AttemptRecord& attempt);

private:
  int m_stall_after;
  std::optional<std::string> m_last_signature;
  std::string m_command_failures;
  int m_same_command_failures = 0;
};

} // namespace ralph::loop
