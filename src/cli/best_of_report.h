#pragma once

#include "ralph/core/message.h"
#include "ralph/core/status.h"

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace ralph::cli {

// One attempt of best of N as the result shows it.
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

// What `ralph run --parallel-attempts N` reports.
struct BestOfReport {
  std::string session_id; // the best-of-N session the attempts' sessions belong to
  Status status = Status::failed;
  std::string workspace;
  std::optional<int> winner; // the passing attempt chosen
  int best = 0;              // the first in the ranking, winner or not
  std::string why;           // the rule that ranked it first
  bool applied = false;
  bool unchanged = false;                  // the winner changed no file: nothing to apply
  std::string commit;                      // the commit made on the current branch (git)
  std::string apply_error;                 // why the winner was not applied
  std::string answer;                      // the winner's
  std::vector<int> order;                  // indexes, best first
  std::vector<CandidateReport> candidates; // by index
};

// The `--json` result: one line on `out`.
void print_best_of_json(std::FILE* out, const BestOfReport& report);

// For a person: which attempt won and why, then one line per attempt.
std::string best_of_table(const BestOfReport& report);

} // namespace ralph::cli
