#include "cli/best_of_command.h"

#include "cli/best_of_view.h"
#include "cli/interrupt.h"
#include "cli/requests.h"

#include "ralph/app/best_of/best_of.h"
#include "ralph/core/try.h"
#include "ralph/session/agents.h"

#include <fmt/format.h>

namespace ralph::cli {

Result<int> best_of_command(const RunArgs& args) {
  session::Runtime runtime;
  TRY_ASSIGN(session::SessionRequest request, request_from(args, runtime.environment()));
  BestOfView view(runtime.redactor(), session::agent_label(request.config), args.quiet);
  const CancelToken cancel;
  const InterruptHandler interrupt(cancel);
  SystemClock clock;
  TRY_ASSIGN(const app::BestOfReport report,
             app::run_best_of(runtime,
                              {.session = std::move(request), .attempts = args.parallel_attempts},
                              view, clock, cancel));
  if (!report.ran) {
    return exit_code(report.status);
  }
  if (report.record_failure) {
    std::fprintf(stderr, "ralph: error: the session record is incomplete: %s\n",
                 report.record_failure->message.c_str());
  }
  if (args.json) {
    print_best_of_json(stdout, report);
  } else {
    if (!report.answer.empty()) {
      fmt::print(stdout, "{}\n\n", report.answer);
    }
    fmt::print(stdout, "{}", best_of_table(report));
    std::fflush(stdout);
  }
  if (!report.apply_error.empty()) {
    std::fprintf(stderr,
                 "ralph: error: the winning attempt was not applied: %s (every attempt "
                 "is kept under %s)\n",
                 report.apply_error.c_str(), report.attempts_dir.c_str());
    return 2;
  }
  return exit_code(report.status);
}

} // namespace ralph::cli
