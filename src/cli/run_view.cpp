#include "cli/run_view.h"

#include "cli/grounded_answer.h"
#include "cli/run_report.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

namespace ralph::cli {

RunDisplay::RunDisplay(const session::Runtime& runtime, const session::Session& session,
                       const RunArgs& args, const std::string& banner)
    : m_session(session), m_args(args),
      m_view(stdout, stderr,
             {.stream_text = !args.json && session.streams_text(),
              .progress = !args.quiet,
              .color = TerminalView::color_wanted(stderr),
              .live = TerminalView::live_wanted(stderr),
              .progress_interval = std::chrono::duration_cast<std::chrono::milliseconds>(
                  session.config().display.progress_interval)}) {
  const Redactor& redactor = runtime.redactor();
  m_view.note(redactor.redact(banner));
  for (const auto& warning : session.warnings()) {
    m_view.note("warning: " + redactor.redact(warning));
  }
  for (const auto& name : redactor.too_short()) {
    m_view.note(fmt::format("warning: {} is shorter than {} characters: it cannot be told from "
                            "ordinary text and is not redacted",
                            name, k_min_secret_bytes));
  }
}

int RunDisplay::finish(const session::SessionReport& report) {
  // Each error is said once: as it happened (the view's error line), or in the summary line, or,
  // when --quiet leaves both out, here.
  bool error_said = false;
  if (report.status == Status::failed && report.error) {
    error_said = m_view.error_shown(report.error->message) || m_view.error_shown(report.reason);
    if (m_args.quiet) {
      std::fprintf(stderr, "ralph: error: %s\n", report.error->message.c_str());
    }
  } else if (report.status == Status::interrupted && m_args.quiet) {
    std::fprintf(stderr, "ralph: interrupted: %s\n", report.reason.c_str());
  }
  if (report.record_failure) {
    std::fprintf(stderr, "ralph: error: the session record is incomplete: %s\n",
                 report.record_failure->message.c_str());
  }
  if (!report.events_error.empty()) {
    std::fprintf(stderr, "ralph: warning: %s\n", report.events_error.c_str());
  }
  if (m_args.json) {
    print_json_report(stdout, report);
  } else if (const docqa::QaChecker* checker = m_session.qa_checker()) {
    print_grounded_answer(stdout, report, *checker);
  } else {
    print_answer(stdout, m_view, report);
  }
  m_view.note(summary_line(report, !error_said));
  return exit_code(report.status);
}

Result<int> run_shown(session::Runtime& runtime, session::Session& session, const RunArgs& args,
                      const std::string& banner) {
  RunDisplay display(runtime, session, args, banner);
  TRY_ASSIGN(const SessionReport report, session.run(display.view()));
  return display.finish(report);
}

} // namespace ralph::cli
