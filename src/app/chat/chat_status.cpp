// Where a chat's goal stands, as data: counted from the running goal's events.
#include "app/chat/chat_progress.h"

#include "ralph/app/chat/chat.h"

namespace ralph::app {
namespace {

GoalPhase phase_of(const ChatGoal& goal, bool running, int iteration) {
  if (goal.status != Status::active) {
    return GoalPhase::ended;
  }
  if (goal.held) {
    return GoalPhase::held;
  }
  return running && iteration > 0 ? GoalPhase::running : GoalPhase::starting;
}

event::VerdictGiven redacted(event::VerdictGiven verdict, const Redactor& redactor) {
  verdict.verifier = redactor.redact(verdict.verifier);
  verdict.category = redactor.redact(verdict.category);
  verdict.feedback = redactor.redact(verdict.feedback);
  return verdict;
}

} // namespace

void Chat::Tap::on_event(const Event& event) {
  {
    const std::scoped_lock lock(m_chat.m_mutex);
    Progress& progress = *m_chat.m_progress;
    if (const auto* started = event.get<event::AttemptStarted>()) {
      progress.iteration = event.iteration;
      progress.max_iterations = started->max_iterations;
      progress.verifying = false;
    } else if (event.get<event::VerifierStarted>() != nullptr) {
      progress.verifying = true;
    } else if (const auto* verdict = event.get<event::VerdictGiven>()) {
      if (progress.verdict_iteration != event.iteration) {
        progress.verdicts.clear();
        progress.verdict_iteration = event.iteration;
      }
      progress.verdicts.push_back(*verdict);
      progress.usage += verdict->usage;
    } else if (const auto* model = event.get<event::ModelFinished>()) {
      progress.usage += model->usage;
    }
  }
  // Outside the lock: whoever is told may ask for status() or hold the goal.
  m_next.on_event(event);
}

ChatStatus Chat::status() const {
  std::optional<ChatGoal> goal;
  GoalSettings settings;
  Progress progress;
  {
    const std::scoped_lock lock(m_mutex);
    goal = m_state.goal;
    const ChatGoal* active = active_goal();
    settings = active != nullptr ? active->settings : m_state.next;
    progress = *m_progress;
  }
  ChatStatus out;
  if (goal) {
    GoalStatus& shown = out.goal.emplace();
    shown.text = m_redactor.redact(goal->text);
    shown.session_id = goal->session_id;
    shown.phase = phase_of(*goal, progress.running, progress.iteration);
    if (shown.phase == GoalPhase::running) {
      shown.attempt = progress.iteration;
      shown.max_attempts = progress.max_iterations;
      shown.verifying = progress.verifying;
    }
    shown.status = goal->status;
    shown.reason = m_redactor.redact(goal->reason);
    for (const std::string& command : goal->settings.verify_commands) {
      shown.added_commands.push_back(m_redactor.redact(command));
    }
    shown.added_judge = m_redactor.redact(goal->settings.judge);
  }
  out.last_verdicts.attempt = progress.verdict_iteration;
  for (const event::VerdictGiven& verdict : progress.verdicts) {
    out.last_verdicts.verdicts.push_back(redacted(verdict, m_redactor));
  }

  BudgetStatus& budgets = out.budgets;
  budgets.attempt = progress.iteration;
  budgets.tokens = progress.carried_tokens + progress.usage.total_tokens();
  budgets.elapsed =
      progress.running
          ? std::chrono::duration_cast<Duration>(m_io->clock().now() - progress.started)
          : Duration(progress.elapsed_ms);
  const auto config = goal_config(settings);
  if (!config) {
    budgets.problem = m_redactor.redact(config.error().message);
    return out;
  }
  budgets.max_iterations = config->loop.max_iterations;
  budgets.max_steps = config->agent.max_steps;
  budgets.max_tokens = config->budget.max_tokens;
  budgets.max_cost_usd = config->budget.max_cost_usd;
  budgets.max_time = config->budget.max_time;
  return out;
}

} // namespace ralph::app
