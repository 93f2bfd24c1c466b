#pragma once

#include "cli/run_context.h"
#include "cli/run_report.h"
#include "cli/verifier_setup.h"

#include "ralph/agent/agent.h"
#include "ralph/tools/registry.h"

#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
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

// An agent with what it needs to live (its tools) and the LoopRun it is in, built by a command
// and run by run_loop or run_session.
struct PreparedRun {
  std::unique_ptr<tools::Registry> tools; // the built-in agent's; null for an external agent
  std::unique_ptr<agent::Agent> agent;
  std::optional<LoopRun> run;
};

// A run's report and what went wrong beside it.
struct SessionRun {
  RunReport report;
  std::optional<Error> record_failure; // the session record is incomplete (redacted)
  std::string events_error;            // the --events file could not be written in full
};

// Runs `run` on the context's goal (or resumes its session) under the outer loop, records it and
// writes the --events and --out files; every event, redacted, also goes to `shown`. Prints
// nothing: for runs hosted many to a process. An error is what stopped the run from starting.
Result<SessionRun> run_session(RunContext& context, LoopRun& run, EventSink& shown);

// run_session for a person or a script: shows the run (`banner` first) and prints the result.
// Returns the exit code of the run's status.
Result<int> run_loop(RunContext& context, const std::string& banner, LoopRun& run);

} // namespace ralph::cli
