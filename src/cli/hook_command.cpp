#include "cli/hook_command.h"

#include "cli/hook_install.h"
#include "cli/hook_protocol.h"
#include "cli/hook_session.h"
#include "cli/requests.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/loop/ending.h"
#include "ralph/session/record.h"
#include "ralph/session/settings.h"
#include "ralph/session/verify_answer.h"

#include <fmt/format.h>

#include <algorithm>
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
// What the person is shown of the last failures when the budget lets a failing stop through.
constexpr std::size_t k_message_excerpt = 1500;

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

// The failing verdicts in a few lines, for the person.
std::string failures(const std::vector<verify::Verdict>& verdicts) {
  std::string text;
  for (const verify::Verdict& verdict : verdicts) {
    if (loop::verdict_failed(verdict)) {
      const std::string_view category = verdict.category.name();
      text += fmt::format("\n[{}] {}{}{}: {}", verdict.verifier, to_string(verdict.result),
                          category.empty() ? "" : " ", category, verdict.feedback);
    }
  }
  return keep_head_and_tail(text, k_message_excerpt);
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
  const fs::path workspace = fs::canonical(payload.cwd, ec);
  if (ec || !fs::is_directory(workspace, ec)) {
    return fail(ErrorKind::usage,
                fmt::format("hook payload: cwd {}: not a directory", payload.cwd.string()));
  }
  session::Runtime runtime;
  const Redactor& redactor = runtime.redactor();
  TRY_ASSIGN(Config config, load_config(args, workspace, runtime.environment()));
  if (config.evidence.enabled) {
    return fail(ErrorKind::config, "evidence.enabled (--verifier-first) needs the tool calls of "
                                   "ralph's own agent; a hook sees only the answer: use verify "
                                   "commands");
  }
  TRY(session::check_prices(config));
  TRY_ASSIGN(const std::unique_ptr<store::SessionStore> store,
             session::open_store(config, workspace));
  if (!store) {
    return fail(ErrorKind::config, "store.enabled is false, but ralph hook keeps its budgets "
                                   "across the agent's stops in the session store");
  }
  const std::string id = hook_session_id(payload.agent, payload.session_id);
  TRY_ASSIGN(std::optional<store::SessionRow> row, HookSession::find(*store, id));
  std::optional<verify::ProtectedSnapshot> baseline;
  if (row) {
    TRY_ASSIGN(baseline, session::baseline_from_row(*row));
  }
  engine::BlockingIo io;
  TRY_ASSIGN(auto verifier,
             session::AnswerVerifier::prepare(runtime, config, workspace, io, baseline));
  for (const std::string& warning : verifier->warnings()) {
    std::fprintf(stderr, "ralph hook: warning: %s\n", redactor.redact(warning).c_str());
  }
  TRY_ASSIGN(HookSession session,
             HookSession::begin(*store, std::move(row), payload, id, workspace, config,
                                verifier->baseline(), redactor, std::chrono::system_clock::now()));

  const int max_iterations = config.loop.max_iterations;
  // The judge checks the answer against this round's prompt when the payload or the transcript
  // gave one.
  const std::string goal = payload.prompt.empty() ? session.row().goal : payload.prompt;
  const loop::AnswerCheck check = verifier->check(
      {.goal = goal,
       .answer = payload.answer,
       .iteration = session.round_attempt(),
       .output_dir = session::store_file(config, workspace).parent_path() / "outputs" / id},
      CancelToken());
  const std::vector<verify::Verdict>& verdicts = check.attempt.verdicts;

  if (!check.unchecked.empty()) {
    const std::string why = failures(check.unchecked);
    TRY(session.finish(verdicts, Status::active, false, "the hook could not verify", ""));
    return fail(ErrorKind::subprocess,
                fmt::format("could not verify the answer, so the agent may stop:{}", why));
  }
  // The round's budgets end it as they end a run of the loop: its time since the round's first
  // stop, and its attempts.
  const auto elapsed = session.round_elapsed(std::chrono::system_clock::now());
  const bool out_of_time = config.budget.max_time.count() > 0 && elapsed >= config.budget.max_time;
  const loop::Ending ending = loop::ending_after_verdicts(
      check.attempt, max_iterations,
      out_of_time ? std::optional<BudgetKind>(BudgetKind::time) : std::nullopt);
  if (ending.status == Status::completed) {
    TRY(session.finish(verdicts, Status::completed, check.verified, ending.reason, ""));
    return HookDecision{};
  }
  if (ending.status == Status::active) {
    const std::string feedback = redactor.redact(check.feedback);
    TRY(session.finish(verdicts, Status::active, false, "", feedback));
    return HookDecision{.block = true, .reason = feedback};
  }
  std::string reason = ending.reason;
  if (ending.status == Status::budget_exhausted) {
    const std::string budget =
        ending.budget == BudgetKind::time
            ? fmt::format(
                  "the time budget ({} s) ran out",
                  std::chrono::duration_cast<std::chrono::seconds>(config.budget.max_time).count())
            : fmt::format("the iteration budget ({} attempts) ran out", max_iterations);
    reason = fmt::format("verification still fails after {} attempt{}; {}", session.round_attempt(),
                         session.round_attempt() == 1 ? "" : "s", budget);
  }
  TRY(session.finish(verdicts, ending.status, false, reason, ""));
  return HookDecision{.message = redactor.redact(fmt::format(
                          "ralph: {}, so the stop is let through unverified (session {}).{}",
                          reason, id, failures(verdicts)))};
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
