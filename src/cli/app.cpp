#include "ralph/cli/app.h"

#include "cli/batch_command.h"
#include "cli/chat_command.h"
#include "cli/command_line.h"
#include "cli/heartbeat_command.h"
#include "cli/hook_command.h"
#include "cli/mcp_command.h"
#include "cli/queue_enqueue.h"
#include "cli/queue_status.h"
#include "cli/run_command.h"
#include "cli/serve_command.h"
#include "cli/sessions_command.h"
#include "cli/worker_command.h"

#include "ralph/session/environment.h"

#include <cstdio>
#include <exception>

namespace ralph::cli {
namespace {

Result<int> run(const ParsedCommand& command) {
  switch (command.name) {
  case CommandName::run:
    return run_command(command.run);
  case CommandName::qa:
    return document_command(command.run, DocumentMode::qa);
  case CommandName::task:
    return document_command(command.run, DocumentMode::task);
  case CommandName::demo:
    return demo_command(command.run);
  case CommandName::sessions_list:
  case CommandName::sessions_show:
  case CommandName::sessions_resume:
  case CommandName::sessions_export:
  case CommandName::sessions_rm:
  case CommandName::sessions_prune:
  case CommandName::sessions_copy:
    return sessions_command(command);
  case CommandName::hook:
    return hook_command(command.run, command.hook);
  case CommandName::hook_install:
    return hook_install_command(command.run, command.hook, true);
  case CommandName::hook_uninstall:
    return hook_install_command(command.run, command.hook, false);
  case CommandName::chat:
    return chat_command(command.run, command.chat);
  case CommandName::heartbeat:
    return heartbeat_command(command.run, command.heartbeat);
  case CommandName::batch:
    return command.batch.queue.empty() ? batch_command(command.run, command.batch)
                                       : enqueue_command(command.run, command.batch);
  case CommandName::batch_status:
    return queue_status_command(command.run, command.batch);
  case CommandName::batch_export:
    return queue_export_command(command.batch);
  case CommandName::worker:
    return worker_command(command.run, command.worker);
  case CommandName::serve:
    return serve_command(command.run, command.serve);
  case CommandName::mcp_list:
    return mcp_list_command(command.run, command.mcp, false);
  case CommandName::mcp_check:
    return mcp_list_command(command.run, command.mcp, true);
  case CommandName::mcp_serve:
    return mcp_serve_command(command.run);
  case CommandName::mcp_install:
    return mcp_install_command(command.run, command.mcp, true);
  case CommandName::mcp_uninstall:
    return mcp_install_command(command.run, command.mcp, false);
  case CommandName::none:
    break;
  }
  return fail(ErrorKind::usage, "no command given");
}

} // namespace

int run_cli(int argc, char** argv) {
  try {
    const ParsedCommand command = parse_command_line(argc, argv);
    if (command.exit_code >= 0) {
      return command.exit_code;
    }
    const Result<int> code = run(command);
    if (code) {
      return *code;
    }
    // What kept a command from running: one line, and the exit code of its kind.
    std::fprintf(stderr, "ralph: error: %s\n",
                 session::Environment::process().redactor().redact(code.error().message).c_str());
    const ErrorKind kind = code.error().kind;
    return kind == ErrorKind::usage || kind == ErrorKind::config ? 2 : 1;
  } catch (const std::exception& e) {
    // Only programmer errors and "cannot continue" reach here.
    std::fprintf(stderr, "ralph: internal error: %s\n", e.what());
    return 1;
  }
}

} // namespace ralph::cli
