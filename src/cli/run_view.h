#pragma once

#include "cli/command_line.h"
#include "cli/terminal_view.h"

#include "ralph/core/error.h"
#include "ralph/session/report.h"
#include "ralph/session/runtime.h"
#include "ralph/session/session.h"

#include <string>

namespace ralph::cli {

// A session shown for a person or a script, for a caller that runs the session itself: the banner
// and the session's warnings when made, every event on the terminal as it happens (model text to
// stdout, progress to stderr) through view(), then the result: the --json object, or the answer
// (a QA answer with where each quote occurs) and a summary line. `runtime` and `session` must
// outlive it.
class RunDisplay {
public:
  RunDisplay(const session::Runtime& runtime, const session::Session& session, const RunArgs& args,
             const std::string& banner);

  TerminalView& view() { return m_view; }
  // Prints the result of the session's run; returns the exit code of its status.
  int finish(const session::SessionReport& report);

private:
  const session::Session& m_session;
  const RunArgs& m_args;
  TerminalView m_view;
};

// Runs `session` shown by a RunDisplay. Returns the exit code of the run's status; an error is
// what kept it from starting.
Result<int> run_shown(session::Runtime& runtime, session::Session& session, const RunArgs& args,
                      const std::string& banner);

} // namespace ralph::cli
