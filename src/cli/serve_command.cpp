#include "cli/serve_command.h"

#include "cli/interrupt.h"

#include "ralph/core/try.h"
#include "ralph/server/serve.h"
#include "ralph/session/settings.h"

#include <cstdio>
#include <fstream>

namespace ralph::cli {
namespace {

class ServeLines final : public server::ServeObserver {
public:
  void listening(const server::ServeStart& start) override {
    // The sign-in link on stdout, alone on its line, for a person and for scripts.
    std::printf("%s\n", start.login_url.c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "ralph serve: listening on %s (the link above signs in once)\n",
                 start.url.c_str());
    if (!start.token_file.empty()) {
      std::fprintf(stderr, "ralph serve: API token in %s\n", start.token_file.c_str());
    }
  }
  void warning(const std::string& text) override {
    std::fprintf(stderr, "ralph serve: warning: %s\n", text.c_str());
  }
};

Result<std::string> read_token(const std::string& file) {
  std::ifstream in(file);
  std::string token;
  if (!in || !std::getline(in, token) || token.empty()) {
    return fail(ErrorKind::usage, "--token-file " + file + ": no token on its first line");
  }
  return token;
}

} // namespace

Result<int> serve_command(const RunArgs& args, const ServeArgs& serve) {
  session::Runtime runtime;
  server::ServeRequest request;
  TRY_ASSIGN(request.workspace, session::resolve_workspace(args.workspace));
  TRY_ASSIGN(request.flags, parse_settings(args.overrides));
  TRY_ASSIGN(request.config, session::load_settings({.workspace = request.workspace,
                                                     .extra_file = args.config_file,
                                                     .overrides = request.flags},
                                                    runtime.environment()));
  request.bind = serve.bind;
  request.port = serve.port;
  request.allow_hosts = serve.allow_hosts;
  request.read_only = serve.read_only;
  request.max_streams = serve.max_streams;
  if (!serve.token_file.empty()) {
    TRY_ASSIGN(request.token, read_token(serve.token_file));
  } else {
    request.token = runtime.environment().get("RALPH_SERVE_TOKEN").value_or("");
  }
  if (!request.token.empty() && request.token.size() < 16) {
    return fail(ErrorKind::usage, "the API token is too short: at least 16 characters");
  }
  CancelToken interrupt;
  const InterruptHandler handler(interrupt);
  ServeLines lines;
  TRY(server::serve(runtime, request, lines, interrupt));
  return 0;
}

} // namespace ralph::cli
