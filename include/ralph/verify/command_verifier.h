#pragma once

#include "ralph/core/error.h"
#include "ralph/core/redactor.h"
#include "ralph/core/settings.h"
#include "ralph/tools/process_runner.h"
#include "ralph/verify/verifier.h"

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace ralph::verify {

// Runs the command and judges its exit status. Exit 0 passes; any other exit fails with category
// `test_failed` and an excerpt of the output (failures and the last lines). A command that could
// not be run is an `error`, not a failure: spawn failure, exit 127 "not found" or 126
// (`not_runnable`), `timeout`, `cancelled`. Reruns stop as soon as the outcome is decided either
// way. The evidence holds the last run's exit code, excerpt and output. The output is read as
// it streams: the excerpt's failures are looked for in all of it, however large; an output over
// 1 MB is kept whole in a file in Attempt::output_dir (its path in the evidence and the
// feedback) and by head and tail in the record. The verdict's `tests` are what the JUnit reports
// (`settings.junit`) the last run wrote say, else what the runners' summaries in its output say.
// Thread-safe when the runner is.
class CommandVerifier final : public Verifier {
public:
  // Runs `command` with `/bin/sh -c` in the workspace, within `settings.command_timeout`
  // (0: none), `settings.runs` times at most until `settings.quorum` runs passed; the agent sees
  // `settings.excerpt_chars` of the output. `runner` must outlive the verifier. Settings should
  // be valid (see make_command_verifier); runs and quorum are clamped into range if not.
  // `redactor` replaces secrets in the output file.
  CommandVerifier(std::string command, const VerifySettings& settings, tools::ProcessRunner& runner,
                  Redactor redactor = {});

  // "command: <command>"
  std::string name() const override;
  VerifierKind kind() const override { return VerifierKind::command; }
  Verdict verify(const Attempt& attempt, const CancelToken& cancel) override;

private:
  std::string m_command;
  std::chrono::milliseconds m_timeout;
  std::size_t m_excerpt_chars;
  int m_runs;
  int m_quorum;
  std::vector<std::string> m_junit;
  tools::ProcessRunner& m_runner;
  Redactor m_redactor;
};

// A verifier for `command`, or an ErrorKind::config error: an empty command, runs below 1, a
// quorum outside 1..runs.
Result<std::unique_ptr<CommandVerifier>> make_command_verifier(std::string command,
                                                               const VerifySettings& settings,
                                                               tools::ProcessRunner& runner,
                                                               Redactor redactor = {});

} // namespace ralph::verify
