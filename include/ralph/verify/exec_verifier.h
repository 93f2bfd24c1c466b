#pragma once

#include "ralph/core/error.h"
#include "ralph/tools/process_runner.h"
#include "ralph/verify/verifier.h"

#include <chrono>
#include <memory>
#include <string>

namespace ralph::verify {

// An external program that judges the attempt (`--verify-exec PROG`).
struct ExecOptions {
  std::string program;                        // run as `/bin/sh -c PROG` in the workspace
  std::chrono::milliseconds timeout{120'000}; // 0: no limit
};

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
  // `runner` must outlive the verifier.
  ExecVerifier(ExecOptions options, tools::ProcessRunner& runner);

  // "exec: <program>"
  std::string name() const override;
  Verdict verify(const Attempt& attempt, const CancelToken& cancel) override;

private:
  ExecOptions m_options;
  tools::ProcessRunner& m_runner;
};

// A verifier for `options`, or an ErrorKind::config error when the program is empty.
Result<std::unique_ptr<ExecVerifier>> make_exec_verifier(ExecOptions options,
                                                         tools::ProcessRunner& runner);

} // namespace ralph::verify
