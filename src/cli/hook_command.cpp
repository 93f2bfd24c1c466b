#include "cli/hook_command.h"

#include "cli/hook_install.h"
#include "cli/hook_protocol.h"
#include "cli/requests.h"

#include "ralph/app/hook/stop_hook.h"
#include "ralph/core/try.h"
#include "ralph/engine/io.h"
#include "ralph/session/settings.h"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>

namespace ralph::cli {
namespace {

namespace fs = std::filesystem;

// Payloads carry one answer; a larger input is not a hook payload.
constexpr std::size_t k_max_payload = std::size_t{64} << 20;

Result<std::string> read_stdin() {
  if (::isatty(STDIN_FILENO) != 0) {
    return fail(ErrorKind::usage, "ralph hook reads an agent's hook payload on stdin; install it "
                                  "with `ralph hook install claude` (or codex, gemini)");
  }
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return fail(ErrorKind::io, fmt::format("reading stdin: {}", std::strerror(errno)));
    }
    if (n == 0) {
      return text;
    }
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > k_max_payload) {
      return fail(ErrorKind::parse, "hook payload on stdin: larger than 64 MiB");
    }
  }
}

// Decides one stop of the agent it sets in `agent`. An error means nothing was decided: the hook
// reports it and lets the agent stop.
Result<HookDecision> decide(const RunArgs& args, const HookArgs& hook, HookAgent& agent_out) {
  std::optional<HookAgent> agent;
  if (!hook.agent.empty()) {
    agent = value_of(k_hook_agent_names, hook.agent);
  }
  TRY_ASSIGN(const std::string text, read_stdin());
  TRY_ASSIGN(HookPayload payload, parse_hook_payload(text, agent));
  agent_out = payload.agent;
  if (payload.prompt.empty() && payload.agent == HookAgent::claude && !payload.transcript.empty()) {
    // Claude Code writes its transcript asynchronously: the prompt may land a moment after the
    // hook starts. Up to two seconds for it, then the session goes without.
    for (int tries = 0; tries < 20 && payload.prompt.empty(); ++tries) {
      if (tries > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      payload.prompt = last_prompt_in_transcript(payload.transcript);
    }
  }
  std::error_code ec;
  fs::path workspace = fs::canonical(payload.cwd, ec);
  if (ec || !fs::is_directory(workspace, ec)) {
    return fail(ErrorKind::usage,
                fmt::format("hook payload: cwd {}: not a directory", payload.cwd.string()));
  }
  session::Runtime runtime;
  TRY_ASSIGN(Config config, load_config(args, workspace, runtime.environment()));
  engine::BlockingIo io;
  TRY_ASSIGN(const std::unique_ptr<app::StopHook> stop,
             app::StopHook::prepare(runtime,
                                    {.agent = to_string(payload.agent),
                                     .agent_session = std::move(payload.session_id),
                                     .workspace = std::move(workspace),
                                     .prompt = std::move(payload.prompt),
                                     .answer = std::move(payload.answer),
                                     .follows_block = payload.stop_hook_active,
                                     .config = std::move(config)},
                                    io));
  // Shown before the verifiers run, so even a stop they cannot decide shows them.
  for (const std::string& warning : stop->warnings()) {
    std::fprintf(stderr, "ralph hook: warning: %s\n", warning.c_str());
  }
  TRY_ASSIGN(const app::StopDecision decision, stop->decide(io.clock(), CancelToken()));
  return HookDecision{
      .block = decision.block, .reason = decision.feedback, .message = decision.message};
}

std::string home_dir() {
  const char* home = std::getenv("HOME");
  return home == nullptr ? std::string() : std::string(home);
}

} // namespace

int hook_command(const RunArgs& args, const HookArgs& hook) {
  HookAgent agent = HookAgent::claude;
  const Result<HookDecision> decision = decide(args, hook, agent);
  if (!decision) {
    std::fprintf(
        stderr, "ralph hook: error: %s\n",
        session::Environment::process().redactor().redact(decision.error().message).c_str());
    return 1;
  }
  const std::string out = hook_output(agent, *decision);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  if (!decision->message.empty()) {
    std::fprintf(stderr, "%s\n", decision->message.c_str());
  }
  return 0;
}

Result<int> hook_install_command(const RunArgs& args, const HookArgs& hook, bool install) {
  const std::optional<HookAgent> agent = value_of(k_hook_agent_names, hook.target);
  if (!agent) {
    return fail(ErrorKind::usage, fmt::format("ralph hook {}: unknown agent '{}'; expected "
                                              "claude, codex or gemini",
                                              install ? "install" : "uninstall", hook.target));
  }
  const HookScope scope = hook.user ? HookScope::user : HookScope::project;
  fs::path project;
  if (scope == HookScope::project) {
    TRY_ASSIGN(project, session::resolve_workspace(args.workspace));
  } else if (home_dir().empty()) {
    return fail(ErrorKind::usage, "--user: HOME is not set");
  }
  const char* codex_home = std::getenv("CODEX_HOME");
  const fs::path file = hook_settings_file(*agent, scope, project, home_dir(),
                                           codex_home == nullptr ? "" : codex_home);
  if (!install) {
    TRY_ASSIGN(const bool removed, uninstall_hook(file, *agent));
    std::printf("%s\n", removed ? fmt::format("removed ralph's hook from {}", file.string()).c_str()
                                : fmt::format("no ralph hook in {}", file.string()).c_str());
    return 0;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    return fail(ErrorKind::io, fmt::format("cannot find ralph's own path: {}", ec.message()));
  }
  const std::string command = hook_command_line(self, *agent);
  TRY_ASSIGN(const bool added, install_hook(file, *agent, command));
  if (!added) {
    std::printf("ralph's hook is already in %s\n", file.string().c_str());
    return 0;
  }
  std::printf("added to %s: %s\n", file.string().c_str(), command.c_str());
  if (*agent == HookAgent::codex) {
    std::printf("Codex runs a new hook only once you trust it (the /hooks review in codex); "
                "codex exec skips it until then\n");
  }
  return 0;
}

} // namespace ralph::cli
