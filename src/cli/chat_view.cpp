#include "cli/chat_view.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <cmath>

namespace ralph::cli {
namespace {

using app::ChangeFor;
using app::GoalPhase;
using app::GoalStatus;

std::string limit_text(double used, double limit, std::string_view unit) {
  return limit > 0 ? fmt::format("{}{} of {}{}", used, unit, limit, unit)
                   : fmt::format("{}{} (no limit)", used, unit);
}

double seconds(Duration duration) {
  return std::chrono::duration<double>(duration).count();
}

std::string state_text(const GoalStatus& goal) {
  switch (goal.phase) {
  case GoalPhase::ended:
    return fmt::format("{} · {}", to_string(goal.status), goal.reason);
  case GoalPhase::held:
    return fmt::format("held · {} (/resume goes on)", goal.reason);
  case GoalPhase::running:
    return fmt::format("running · attempt {} of {}{}", goal.attempt, goal.max_attempts,
                       goal.verifying ? " · verifying" : "");
  case GoalPhase::starting:
    break;
  }
  return "starting";
}

std::string goal_text(const GoalStatus& goal) {
  std::string out = fmt::format("goal: {}\n", goal.text);
  if (!goal.session_id.empty()) {
    out += fmt::format("session: {}\n", goal.session_id);
  }
  out += "state: " + state_text(goal) + "\n";
  if (!goal.added_commands.empty() || !goal.added_judge.empty()) {
    std::vector<std::string> added;
    for (const std::string& command : goal.added_commands) {
      added.push_back("command: " + command);
    }
    if (!goal.added_judge.empty()) {
      added.push_back("judge " + goal.added_judge);
    }
    out += fmt::format("added: {}\n", fmt::join(added, "; "));
  }
  return out;
}

} // namespace

void ChatTerminal::on_warning(const std::string& warning) {
  m_view.note("warning: " + warning);
}

void ChatTerminal::on_goal_goes_on_with_changes() {
  m_view.note("  · going on with the changed verifiers and budgets");
}

void ChatTerminal::on_record_failed(const Error& error) {
  m_view.note("warning: the chat's record could not be written: " + error.message);
}

std::string status_text(const app::ChatStatus& status) {
  std::string out = status.goal ? goal_text(*status.goal) : "no goal (/goal TEXT starts one)\n";
  const auto& last = status.last_verdicts;
  if (!last.verdicts.empty()) {
    out += fmt::format("last verdicts (attempt {}):\n", last.attempt);
    for (const event::VerdictGiven& verdict : last.verdicts) {
      const char* mark = verdict.result == verify::Outcome::pass   ? "✓"
                         : verdict.result == verify::Outcome::fail ? "✗"
                                                                   : "!";
      out += fmt::format("  {} {} {}", mark, verdict.verifier, to_string(verdict.result));
      if (!verdict.category.empty()) {
        out += " [" + verdict.category + "]";
      }
      if (verdict.result != verify::Outcome::pass && !verdict.feedback.empty()) {
        out += ": " + first_line(verdict.feedback, 100);
      }
      out += "\n";
    }
  }
  return out + budgets_text(status.budgets) + "\n";
}

std::string budgets_text(const app::BudgetStatus& budgets) {
  if (!budgets.problem.empty()) {
    return "budgets: " + budgets.problem;
  }
  return fmt::format(
      "budgets: iterations {} · steps {} per attempt · tokens {} · cost {} · time {}",
      budgets.attempt > 0 ? fmt::format("{} of {}", budgets.attempt, budgets.max_iterations)
                          : fmt::format("{}", budgets.max_iterations),
      budgets.max_steps,
      limit_text(static_cast<double>(budgets.tokens), static_cast<double>(budgets.max_tokens), ""),
      budgets.max_cost_usd > 0 ? fmt::format("${} limit", budgets.max_cost_usd) : "(no limit)",
      limit_text(std::round(seconds(budgets.elapsed)), seconds(budgets.max_time), "s"));
}

std::string verifier_added_text(ChangeFor target, const std::string& command) {
  return fmt::format("verifier added {}: command: {}",
                     target == ChangeFor::goal ? "to the goal" : "for the next goal", command);
}

std::string judge_set_text(ChangeFor target, const std::string& model) {
  return fmt::format("the {} is judged by {}", target == ChangeFor::goal ? "goal" : "next goal",
                     model);
}

} // namespace ralph::cli
