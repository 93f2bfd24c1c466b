#include "cli/interrupt.h"
#include "cli/mcp_command.h"

#include "ralph/core/try.h"
#include "ralph/server/mcp_serve.h"
#include "ralph/session/settings.h"

#include <cstdio>
#include <unistd.h>

namespace ralph::cli {
namespace {

// Stdout carries MCP messages only: whatever the server has to say goes to stderr.
class StderrLines final : public server::ServeObserver {
public:
  void listening(const server::ServeStart&) override {}
  void warning(const std::string& text) override {
    std::fprintf(stderr, "ralph mcp serve: warning: %s\n", text.c_str());
  }
};

} // namespace

Result<int> mcp_serve_command(const RunArgs& args) {
  session::Runtime runtime;
  server::McpServeRequest request;
  TRY_ASSIGN(request.workspace, session::resolve_workspace(args.workspace));
  TRY_ASSIGN(request.flags, parse_settings(args.overrides));
  TRY_ASSIGN(request.config, session::load_settings({.workspace = request.workspace,
                                                     .extra_file = args.config_file,
                                                     .overrides = request.flags},
                                                    runtime.environment()));
  CancelToken interrupt;
  const InterruptHandler handler(interrupt);
  StderrLines lines;
  TRY(server::mcp_serve(runtime, request, STDIN_FILENO, STDOUT_FILENO, lines, interrupt));
  return 0;
}

} // namespace ralph::cli
