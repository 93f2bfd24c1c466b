#include "ralph/app/hook/stop_hook.h"

#include "app/hook/hook_session.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/loop/answer_check.h"
#include "ralph/loop/ending.h"
#include "ralph/session/record.h"
#include "ralph/session/settings.h"
#include "ralph/session/verify_answer.h"

#include <fmt/format.h>

#include <optional>

namespace ralph::app {
namespace {

// What the person is shown of the last failures when a budget lets a failing stop through.
constexpr std::size_t k_message_excerpt = 1500;

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

// Why a failing stop ends the round: the loop's reason, or for a budget the attempts it took and
// which budget ran out, in the hook's words.
std::string ending_reason(const loop::Ending& ending, const Config& config, int round_attempt) {
  if (ending.status != Status::budget_exhausted) {
    return ending.reason;
  }
  const std::string budget =
      ending.budget == BudgetKind::time
          ? fmt::format(
                "the time budget ({} s) ran out",
                std::chrono::duration_cast<std::chrono::seconds>(config.budget.max_time).count())
          : fmt::format("the iteration budget ({} attempts) ran out", config.loop.max_iterations);
  return fmt::format("verification still fails after {} attempt{}; {}", round_attempt,
                     round_attempt == 1 ? "" : "s", budget);
}

} // namespace

struct StopHook::Parts {
  session::Runtime* runtime = nullptr;
  StopRequest request;
  std::string id;
  std::unique_ptr<store::SessionStore> store;
  std::optional<store::SessionRow> row; // none: the agent session's first stop
  std::unique_ptr<session::AnswerVerifier> verifier;
  std::vector<std::string> warnings; // redacted
  bool decided = false;
};

StopHook::StopHook(std::unique_ptr<Parts> parts) : m_parts(std::move(parts)) {}

StopHook::~StopHook() = default;

const std::vector<std::string>& StopHook::warnings() const {
  return m_parts->warnings;
}

const std::string& StopHook::session_id() const {
  return m_parts->id;
}

Result<std::unique_ptr<StopHook>> StopHook::prepare(session::Runtime& runtime, StopRequest request,
                                                    engine::Io& io) {
  if (request.agent.empty() || request.agent_session.empty()) {
    return fail(ErrorKind::usage, "a stop names its agent CLI and that CLI's session id");
  }
  const Config& config = request.config;
  TRY(session::check_verifiable(config));
  TRY(session::check_prices(config));
  auto parts = std::make_unique<Parts>();
  TRY_ASSIGN(parts->store, session::open_store(config, request.workspace));
  if (!parts->store) {
    return fail(ErrorKind::config, "store.enabled is false, but ralph hook keeps its budgets "
                                   "across the agent's stops in the session store");
  }
  parts->id = hook_session_id(request.agent, request.agent_session);
  TRY_ASSIGN(parts->row, parts->store->find_session(parts->id));
  std::optional<verify::ProtectedSnapshot> baseline;
  if (parts->row) {
    TRY_ASSIGN(baseline, session::baseline_from_row(*parts->row));
  }
  TRY_ASSIGN(parts->verifier,
             session::AnswerVerifier::prepare(runtime, config, request.workspace, io, baseline));
  for (const std::string& warning : parts->verifier->warnings()) {
    parts->warnings.push_back(runtime.redactor().redact(warning));
  }
  parts->runtime = &runtime;
  parts->request = std::move(request);
  return std::unique_ptr<StopHook>(new StopHook(std::move(parts)));
}

Result<StopDecision> StopHook::decide(Clock& clock, const CancelToken& cancel) {
  Parts& parts = *m_parts;
  const StopRequest& request = parts.request;
  const Config& config = request.config;
  const Redactor& redactor = parts.runtime->redactor();
  if (parts.decided) {
    return fail(ErrorKind::internal, "a stop is decided once");
  }
  parts.decided = true;
  TRY_ASSIGN(HookSession session,
             HookSession::begin(*parts.store, std::move(parts.row), request, parts.id,
                                parts.verifier->baseline(), redactor, clock));

  // The judge checks the answer against this round's prompt when the agent CLI gave one.
  const std::string& goal = request.prompt.empty() ? session.row().goal : request.prompt;
  const loop::AnswerCheck check = parts.verifier->check(
      {.goal = goal,
       .answer = request.answer,
       .iteration = session.round_attempt(),
       .output_dir = session::session_outputs_dir(config, request.workspace, parts.id)},
      cancel);
  const std::vector<verify::Verdict>& verdicts = check.attempt.verdicts;
  if (!check.unchecked.empty()) {
    TRY(session.finish(verdicts, Status::active, false, "the hook could not verify", ""));
    return fail(ErrorKind::subprocess,
                fmt::format("could not verify the answer, so the agent may stop:{}",
                            failures(check.unchecked)));
  }

  // The round's budgets end it as they end a run of the loop: its time since the round's first
  // stop, and its attempts.
  const bool out_of_time =
      config.budget.max_time.count() > 0 && session.round_elapsed() >= config.budget.max_time;
  const loop::Ending ending = loop::ending_after_verdicts(
      check.attempt, config.loop.max_iterations,
      out_of_time ? std::optional<BudgetKind>(BudgetKind::time) : std::nullopt);
  StopDecision decision{.warnings = parts.warnings, .session_id = parts.id};
  if (ending.status == Status::completed) {
    TRY(session.finish(verdicts, Status::completed, check.verified, ending.reason, ""));
    return decision;
  }
  if (ending.status == Status::active) {
    decision.block = true;
    decision.feedback = redactor.redact(check.feedback);
    TRY(session.finish(verdicts, Status::active, false, "", decision.feedback));
    return decision;
  }
  const std::string reason = ending_reason(ending, config, session.round_attempt());
  TRY(session.finish(verdicts, ending.status, false, reason, ""));
  decision.message = redactor.redact(
      fmt::format("ralph: {}, so the stop is let through unverified (session {}).{}", reason,
                  parts.id, failures(verdicts)));
  return decision;
}

Result<StopDecision> decide_stop(session::Runtime& runtime, const StopRequest& request,
                                 engine::Io& io, Clock& clock, const CancelToken& cancel) {
  TRY_ASSIGN(const std::unique_ptr<StopHook> hook, StopHook::prepare(runtime, request, io));
  return hook->decide(clock, cancel);
}

} // namespace ralph::app
