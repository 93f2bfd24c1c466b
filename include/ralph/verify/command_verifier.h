#pragma once

#include "ralph/core/error.h"
#include "ralph/tools/process_runner.h"
#include "ralph/verify/verifier.h"

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace ralph::verify {

// A shell command that must exit 0, e.g. `make check` (`--verify-cmd`).
struct CommandOptions {
  std::string command;                        // run as `/bin/sh -c COMMAND` in the workspace
  std::chrono::milliseconds timeout{600'000}; // 0: no limit
  std::size_t excerpt_chars = 4000;           // budget of the output excerpt the agent sees
  int runs = 1;                               // a flaky command runs up to this many times...
  int quorum = 1;                             // ...and passes once this many runs passed
};

// Runs the command and judges its exit status. Exit 0 passes; any other exit fails with category
// `test_failed` and an excerpt of the output (failures and the last lines). A command that could
// not be run is an `error`, not a failure: spawn failure, exit 127 "not found" or 126
// (`not_runnable`), `timeout`, `cancelled`. Reruns stop as soon as the outcome is decided either
// way. The evidence holds the last run's exit code, excerpt and whole output (up to about 1 MB,
// head and tail). Thread-safe when the runner is.
class CommandVerifier final : public Verifier {
public:
  // `runner` must outlive the verifier. Options should be valid (see make_command_verifier);
  // `runs` and `quorum` are clamped into range if not.
  CommandVerifier(CommandOptions options, tools::ProcessRunner& runner);

  // "command: <command>"
  std::string name() const override;
  Verdict verify(const Attempt& attempt, const CancelToken& cancel) override;

private:
  CommandOptions m_options;
  tools::ProcessRunner& m_runner;
};

// A verifier for `options`, or an ErrorKind::config error: empty command, runs below 1, quorum
// outside 1..runs.
Result<std::unique_ptr<CommandVerifier>> make_command_verifier(CommandOptions options,
                                                               tools::ProcessRunner& runner);

} // namespace ralph::verify
