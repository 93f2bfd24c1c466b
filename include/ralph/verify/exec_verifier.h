#pragma once

#include "ralph/core/error.h"
#include "ralph/core/settings.h"
#include "ralph/tools/process_runner.h"
#include "ralph/verify/verifier.h"

#include <chrono>
#include <memory>
#include <string>

namespace ralph::verify {

// Runs the program with the attempt as JSON on stdin (attempt_to_json) and reads its verdict as
// JSON from stdout:
//   {"result": "pass" | "fail" | "error", "category": "...", "feedback": "..."}
// `verdict` is accepted for `result`, values in any case; `category` and `feedback` are optional
// strings. When stdout as a whole is not JSON, its last non-empty line is tried, so a program may
// log before answering. The exit status does not matter when the verdict parses. A `fail` without
// a category gets `check_failed`, an `error` without one `verifier_error`. Anything else is an
// `error`: `malformed` (no such JSON, quoted, with the tail of stderr), `timeout`, `cancelled`,
// `not_runnable`. Thread-safe when the runner is.
class ExecVerifier final : public Verifier {
public:
  // Runs `program` with `/bin/sh -c` in the workspace, within `settings.exec_timeout` (0: none).
  // `runner` must outlive the verifier.
  ExecVerifier(std::string program, const VerifySettings& settings, tools::ProcessRunner& runner);

  // "exec: <program>"
  std::string name() const override;
  VerifierKind kind() const override { return VerifierKind::exec; }
  Verdict verify(const Attempt& attempt, const CancelToken& cancel) override;

private:
  std::string m_program;
  std::chrono::milliseconds m_timeout;
  tools::ProcessRunner& m_runner;
};

// A verifier for `program`, or an ErrorKind::config error when it is empty.
Result<std::unique_ptr<ExecVerifier>> make_exec_verifier(std::string program,
                                                         const VerifySettings& settings,
                                                         tools::ProcessRunner& runner);

} // namespace ralph::verify
