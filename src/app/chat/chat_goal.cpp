// A chat's goal: run verifier-first as a session of its own under the chat, held and resumed.
#include "app/chat/chat_progress.h"

#include "ralph/app/chat/chat.h"
#include "ralph/core/host_name.h"
#include "ralph/core/ids.h"
#include "ralph/core/redacting_sink.h"
#include "ralph/core/try.h"
#include "ralph/loop/session_resume.h"
#include "ralph/loop/store_journal.h"
#include "ralph/session/agents.h"
#include "ralph/session/record.h"
#include "ralph/session/settings.h"
#include "ralph/session/verifiers.h"
#include "ralph/verify/completion_marker.h"

#include <fmt/format.h>

#include <unistd.h>

namespace ralph::app {

Result<Config> Chat::goal_config(const GoalSettings& settings) const {
  Config config = m_config;
  // A goal is verifier-first and every answer of it is verified; as in seed 004, a retry starts
  // from a compact continuation prompt.
  config.evidence.enabled = true;
  config.loop.trigger.mode = TriggerMode::always;
  config.loop.heartbeat = false;
  config.loop.feedback = FeedbackMode::continuation;
  for (const std::string& command : settings.verify_commands) {
    config.verify.commands.push_back(command);
  }
  if (!settings.judge.empty()) {
    TRY(set_config_value(config, "judge.model", settings.judge, "/judge"));
  }
  TRY(apply_overrides(config, settings.budgets));
  TRY(session::check_evidence_agent(config));
  return config;
}

Result<loop::LoopResult> Chat::run_goal_once(ChatGoal goal, const CancelToken& cancel) {
  TRY_ASSIGN(const Config config, goal_config(goal.settings));
  TRY(session::check_prices(config));

  std::optional<store::SessionRow> row;
  std::optional<loop::ResumedRun> resumed;
  std::optional<verify::ProtectedSnapshot> baseline;
  if (!goal.session_id.empty()) {
    TRY_ASSIGN(auto record, m_store->load(goal.session_id));
    if (!record) {
      return fail(ErrorKind::store,
                  fmt::format("the goal's session {} is missing from the store", goal.session_id));
    }
    TRY_ASSIGN(resumed, loop::resume_from_record(*record));
    TRY_ASSIGN(baseline, session::baseline_from_row(record->session));
    row = record->session;
  }
  TRY_ASSIGN(session::VerifierSetup verifiers,
             session::build_verifiers(config, m_workspace, m_io->runner(), *m_models, baseline,
                                      true, m_redactor));
  for (const auto& warning : verifiers.warnings) {
    m_observer.on_warning(m_redactor.redact(warning));
  }
  const std::string prompt = verify::goal_prompt(
      goal.text, config.evidence.marker, config.verify.commands, config.evidence.instructions);
  std::vector<Message> conversation;
  loop::LoopState state;
  if (resumed) {
    conversation = std::move(resumed->conversation);
    state = std::move(resumed->state);
    row->status = Status::active;
    row->owner_pid = getpid();
    row->owner_host = host_name();
    row->config_json = m_redactor.redact_json(config_to_json(config));
    TRY(m_store->update_session(*row));
  } else {
    {
      const std::scoped_lock lock(m_mutex);
      conversation = m_state.conversation;
    }
    conversation.push_back(Message{.role = Role::user, .content = prompt});
    row = session::new_session_row(new_session_id(), goal.text, m_workspace, config, m_redactor,
                                   verifiers.baseline, m_io->clock().wall_now());
    row->kind = store::SessionKind::goal;
    row->parent_id = m_row.id;
    loop::ResumePoint start;
    start.conversation = conversation;
    row->resume_json = m_redactor.redact_json(loop::resume_point_to_json(start));
    TRY(m_store->create_session(*row));
    {
      const std::scoped_lock lock(m_mutex);
      if (m_state.goal) {
        m_state.goal->session_id = row->id;
      }
    }
    write_row();
  }
  {
    const std::scoped_lock lock(m_mutex);
    m_progress->running = true;
    m_progress->started = m_io->clock().now() - std::chrono::milliseconds(state.spent.elapsed_ms);
    m_progress->usage = Usage{};
    m_progress->carried_tokens = state.spent.usage.total_tokens();
  }

  std::filesystem::path output_dir = session::session_outputs_dir(config, m_workspace, row->id);
  loop::LoopOptions options{.goal = goal.text,
                            .workspace = m_workspace,
                            .loop = config.loop,
                            .budget = config.budget,
                            .prices = config.prices,
                            .evidence = config.evidence,
                            .rules = std::move(verifiers.rules),
                            .output_dir = std::move(output_dir),
                            .hold = [this] { return m_hold.load() || m_changed.load(); }};
  RedactingSink redacted(m_observer, m_redactor);
  Tap events(*this, redacted);
  loop::StoreJournal journal(*m_store, *row, m_redactor, nullptr, events);
  loop::OuterLoop outer(*m_agent, std::move(verifiers.entries), std::move(options), m_io->clock(),
                        &journal);
  const loop::BudgetCounters before = state.spent;
  loop::LoopResult result = outer.run(conversation, cancel, events, state);
  redacted.flush();
  {
    const std::scoped_lock lock(m_mutex);
    m_progress->running = false;
    m_progress->elapsed_ms = result.duration_ms;
  }
  // The chat counts what its goals spent too.
  Usage spent = result.usage;
  spent.input_tokens -= before.usage.input_tokens;
  spent.output_tokens -= before.usage.output_tokens;
  m_row.input_tokens += spent.input_tokens;
  m_row.output_tokens += spent.output_tokens;
  m_row.usage_estimated = m_row.usage_estimated || spent.estimated;
  m_row.cost_usd += result.cost_usd - before.cost_usd;
  m_row.cost_known = m_row.cost_known && result.cost_known;
  if (const auto failure = journal.failure()) {
    return fail(failure->kind,
                "the goal's record could not be written: " + m_redactor.redact(failure->message));
  }
  return result;
}

Result<session::SessionReport> Chat::work_on_goal(const CancelToken& cancel) {
  const Working working(*this);
  ChatGoal goal;
  {
    const std::scoped_lock lock(m_mutex);
    if (!m_state.goal || m_state.goal->status != Status::active) {
      return fail(ErrorKind::usage, "no goal to work on (/goal TEXT starts one)");
    }
    goal = *m_state.goal;
  }
  loop::LoopResult result;
  while (true) {
    m_changed = false;
    auto ran = run_goal_once(goal, cancel);
    if (!ran) {
      // The goal waits for what is wrong to be fixed (a /judge model without its key, say).
      const std::scoped_lock lock(m_mutex);
      if (m_state.goal) {
        m_state.goal->held = true;
        m_state.goal->reason = "it could not start: " + m_redactor.redact(ran.error().message);
      }
      m_hold = false;
      return fail(ran.error()); // recorded as the work ends
    }
    result = std::move(*ran);
    {
      const std::scoped_lock lock(m_mutex);
      if (m_state.goal) {
        goal.session_id = m_state.goal->session_id;
        goal.settings = m_state.goal->settings;
      }
    }
    if (result.status == Status::interrupted && !cancel.cancelled() && m_changed && !m_hold) {
      m_observer.on_goal_goes_on_with_changes();
      continue;
    }
    break;
  }
  {
    const std::scoped_lock lock(m_mutex);
    if (m_state.goal) {
      ChatGoal& current = *m_state.goal;
      if (result.status == Status::interrupted) {
        current.held = true;
        current.reason = m_redactor.redact(result.reason);
      } else {
        current.status = result.status;
        current.reason = m_redactor.redact(result.reason);
        // The chat goes on knowing what came of the goal.
        m_state.conversation.push_back(
            Message{.role = Role::user, .content = "Goal: " + goal.text});
        m_state.conversation.push_back(Message{.role = Role::assistant, .content = result.answer});
      }
    }
    m_hold = false;
    m_changed = false;
  }
  return session::make_report(goal.session_id, result, m_redactor); // recorded as the work ends
}

} // namespace ralph::app
