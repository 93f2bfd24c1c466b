#include "cli/run_command.h"

#include "cli/best_of_command.h"
#include "cli/interrupt.h"
#include "cli/requests.h"
#include "cli/run_view.h"

#include "ralph/core/try.h"
#include "ralph/session/agents.h"

#include <fmt/format.h>

namespace ralph::cli {

Result<int> run_command(const RunArgs& args) {
  if (args.parallel_attempts > 1) {
    return best_of_command(args);
  }
  session::Runtime runtime;
  TRY_ASSIGN(session::SessionRequest request, request_from(args, runtime.environment()));
  const std::string banner =
      fmt::format("ralph {} · {} · workspace {}", RALPH_VERSION,
                  session::agent_label(request.config), request.workspace.string());
  const CancelToken cancel;
  const InterruptHandler interrupt(cancel);
  TRY_ASSIGN(auto session, session::Session::prepare(runtime, std::move(request), {}, cancel));
  return run_shown(runtime, *session, args, banner);
}

Result<int> document_command(const RunArgs& args, DocumentMode mode) {
  session::Runtime runtime;
  TRY_ASSIGN(session::SessionRequest request, request_from(args, runtime.environment()));
  Config& config = request.config;
  std::error_code ec;
  config.document.path = std::filesystem::absolute(args.document, ec).string();
  config.document.mode = mode;
  const std::string banner = fmt::format(
      "ralph {} · {} · {} · {} · workspace {}", RALPH_VERSION, to_string(mode), config.model,
      std::filesystem::path(config.document.path).filename().string(), request.workspace.string());
  const CancelToken cancel;
  const InterruptHandler interrupt(cancel);
  TRY_ASSIGN(auto session, session::Session::prepare(runtime, std::move(request), {}, cancel));
  return run_shown(runtime, *session, args, banner);
}

} // namespace ralph::cli
