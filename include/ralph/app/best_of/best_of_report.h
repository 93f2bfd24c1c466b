#pragma once

#include "ralph/core/error.h"
#include "ralph/core/message.h"
#include "ralph/core/status.h"

#include <optional>
#include <string>
#include <vector>

namespace ralph::app {

// One attempt of best of N as it ended.
struct CandidateReport {
  int index = 0;
  std::string session_id; // empty when it never started
  Status status = Status::failed;
  bool verified = false;
  int passing_verdicts = 0; // in its last verified attempt
  int verdicts = 0;         // of that attempt
  std::optional<int> changed_lines;
  int added = 0;
  int removed = 0;
  std::optional<double> cost_usd;
  Usage usage;
  std::string workspace; // where it worked, kept for inspection
  std::string branch;    // its branch (git), its work committed on it
  std::string diff;      // its changes as a patch file
  std::string reason;    // why its run ended
  std::string error;     // what kept it from running or being measured
};

// How best of N ended: who won and why, whether the winner was applied, and every attempt.
struct BestOfReport {
  std::string session_id; // the best-of-N session the attempts' sessions belong to
  // False when it was interrupted while the attempts' workspaces were made: nothing ran, nothing
  // was recorded, and only `session_id`, `status` (interrupted) and `attempts_dir` are set.
  bool ran = true;
  Status status = Status::failed; // the winner's, else the best one's; interrupted; failed
  std::string workspace;
  std::string attempts_dir;  // .ralph/attempts/<session>: every attempt's workspace and diff
  std::optional<int> winner; // the passing attempt chosen
  int best = 0;              // the first in the ranking, winner or not
  std::string why;           // the rule that ranked it first
  bool applied = false;
  bool unchanged = false;                  // the winner changed no file: nothing to apply
  std::string commit;                      // the commit made on the current branch (git)
  std::string apply_error;                 // why the winner was not applied (redacted)
  std::string answer;                      // the winner's
  std::vector<int> order;                  // indexes, best first
  std::vector<CandidateReport> candidates; // by index
  std::optional<Error> record_failure;     // the best-of-N session's record is incomplete
};

} // namespace ralph::app
