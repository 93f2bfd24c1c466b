#pragma once

#include "cli/run_context.h"
#include "cli/run_report.h"
#include "cli/verifier_setup.h"

#include "ralph/agent/agent.h"

#include <cstdio>
#include <functional>
#include <string>

namespace ralph::cli {

// What a command runs under the outer loop: its agent and verifiers, and how it shows the answer.
struct LoopRun {
  agent::Agent& agent;
  VerifierSetup verifiers;
  bool stream_text = true; // the model's text goes to stdout as it arrives
  // Prints the final answer for a person; null: print_answer's default.
  std::function<void(std::FILE*, const RunReport&)> print_answer;
  std::string session_id; // the new session's id when the agent needs it first; empty: made here
};

// Runs `run` on the context's goal (or resumes its session) under the outer loop: records it,
// shows it (`banner` first), writes the --events and --out files, and prints the result. Returns
// the exit code of the run's status; an error is what stopped the run from starting.
Result<int> run_loop(RunContext& context, const std::string& banner, LoopRun& run);

} // namespace ralph::cli
