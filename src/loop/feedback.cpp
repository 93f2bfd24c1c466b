#include "feedback.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

namespace ralph::loop {
namespace {

constexpr std::size_t k_answer_preview = 240;
constexpr std::size_t k_notice_excerpt = 1500;

// " category" after a verdict's result, or nothing for a pass.
std::string with_category(const verify::Verdict& verdict) {
  const std::string_view name = verdict.category.name();
  return name.empty() ? std::string() : fmt::format(" {}", name);
}

} // namespace

bool verdict_failed(const verify::Verdict& verdict) {
  if (verdict.result == verify::Outcome::pass) {
    return false;
  }
  // fail_open forgives a check that could not be made, not one that was stopped.
  return verdict.result == verify::Outcome::fail || verdict.policy != ErrorPolicy::fail_open ||
         verdict.category == verify::Category::cancelled;
}

std::string failure_feedback(const std::vector<verify::Verdict>& verdicts,
                             const std::vector<TestChange>& changes, int iteration,
                             int max_iterations, const std::string& marker) {
  std::string text =
      max_iterations > 0
          ? fmt::format("Your previous answer (attempt {} of {}) did not pass verification.\n",
                        iteration, max_iterations)
          : std::string("Your answer did not pass verification.\n");
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    const verify::Verdict& verdict = verdicts[i];
    if (!verdict_failed(verdict)) {
      continue;
    }
    text += fmt::format("\n[{}] {}{}: {}\n", verdict.verifier, to_string(verdict.result),
                        with_category(verdict), verdict.feedback);
    // A command's excerpt is in its feedback already; others' evidence is added here.
    if (verdict.evidence && verdict.feedback.find(verdict.evidence->excerpt) == std::string::npos &&
        !verdict.evidence->excerpt.empty()) {
      text += fmt::format("Output of `{}`:\n{}\n", verdict.evidence->command,
                          verdict.evidence->excerpt);
    }
    if (i < changes.size() && verdict.tests) {
      text += describe_test_change(verdict, changes[i]) + "\n";
    }
  }
  text += "\nFix every point above, check your work again, and then give your final answer.";
  if (!marker.empty()) {
    text +=
        fmt::format(" End it with {} alone on the last line only after a check passes.", marker);
  }
  return text;
}

std::string precheck_feedback(const AttemptRecord& attempt, int max_steps_hint) {
  if (attempt.stop == agent::AgentStop::max_steps) {
    return fmt::format("Your previous attempt ran out of steps ({} model calls) before giving a "
                       "final answer. Continue from where you stopped, keep the remaining work "
                       "focused, and finish with a final answer.",
                       max_steps_hint);
  }
  return "Your previous answer was empty. Continue the work and give a complete final answer.";
}

std::string continuation_prompt(const Continuation& c) {
  std::string text =
      fmt::format("Objective:\n{}\n\nIteration {} of {}. ", c.goal, c.iteration, c.max_iterations);
  text += c.marker.empty()
              ? "The previous attempt did not pass verification; its conversation has been "
                "cleared, and this summary replaces it.\n"
              : "The previous attempt did not satisfy the completion contract; its conversation "
                "has been cleared, and this summary replaces it.\n";
  if (!c.runtime_summary.empty()) {
    text += fmt::format("\nRuntime summary:\n{}\n", c.runtime_summary);
  }
  if (!c.last_evidence.empty()) {
    text += fmt::format("\nLast verifier evidence:\n{}\n", c.last_evidence);
  }
  text += fmt::format("\nWhy it continues:\n{}\n", c.reason);
  text += "\nContinue with Plan -> Act -> Verify -> Reflect -> Retry: plan the next step, act "
          "with the tools, verify with the strongest check available (run the tests), reflect "
          "on the result, and retry until it passes. Fix failed verification first; if there is "
          "no evidence yet, run a verifier.";
  if (!c.marker.empty()) {
    text += fmt::format(" Only then finalize, with {} alone on the last line.", c.marker);
  }
  return text;
}

std::string summarize_attempt(const AttemptRecord& attempt,
                              const std::vector<verify::ToolRecord>& tools) {
  std::string text = fmt::format("Attempt {}:", attempt.iteration);
  if (tools.empty()) {
    text += " no tool calls.";
  }
  for (const auto& tool : tools) {
    text += fmt::format("\n- {} {}", tool.name, first_line(tool.arguments, 100));
    if (tool.exit_code) {
      text += fmt::format(" -> exit {}", *tool.exit_code);
    } else if (tool.is_error) {
      text += " -> error";
    }
  }
  text += fmt::format("\nAnswer: {}", first_line(attempt.answer, k_answer_preview));
  for (const auto& verdict : attempt.verdicts) {
    text += fmt::format("\nVerdict [{}]: {}{}", verdict.verifier, to_string(verdict.result),
                        with_category(verdict));
  }
  if (!attempt.skip_reason.empty()) {
    text += fmt::format("\nNot verified: {}", attempt.skip_reason);
  }
  return text;
}

std::string describe_last_evidence(const std::vector<verify::Verdict>& verdicts) {
  // What failed is what the reader needs: a passing command's output is quoted only when nothing
  // failed, never in place of the verdict (an evidence check, a judge) that did.
  std::vector<const verify::Verdict*> told;
  for (const auto& verdict : verdicts) {
    if (verdict_failed(verdict)) {
      told.push_back(&verdict);
    }
  }
  if (told.empty()) {
    for (const auto& verdict : verdicts) {
      told.push_back(&verdict);
    }
  }
  for (auto it = told.rbegin(); it != told.rend(); ++it) {
    const verify::Verdict& verdict = **it;
    if (!verdict.evidence) {
      continue;
    }
    const auto& evidence = *verdict.evidence;
    return fmt::format("[{}] {} · `{}` {} · {}\n{}", verdict.verifier, to_string(verdict.result),
                       evidence.command,
                       evidence.exit_code ? fmt::format("exit {}", *evidence.exit_code)
                                          : std::string("did not finish"),
                       evidence.finished_at.empty() ? fmt::format("{} ms", evidence.duration_ms)
                                                    : evidence.finished_at,
                       evidence.excerpt);
  }
  std::string lines;
  for (const verify::Verdict* verdict : told) {
    lines += fmt::format("{}[{}] {}{}: {}", lines.empty() ? "" : "\n", verdict->verifier,
                         to_string(verdict->result), with_category(*verdict),
                         first_line(verdict->feedback, 200));
  }
  return lines;
}

std::string budget_notice(int attempts, BudgetKind kind, bool verifying,
                          const std::vector<verify::Verdict>& last) {
  std::string text;
  const std::string stopped =
      fmt::format("ralph stopped after {} attempt{}", attempts, attempts == 1 ? "" : "s");
  const char* before = verifying ? "before every verifier passed" : "before the agent finished";
  if (kind == BudgetKind::steps) {
    text = "ralph stopped: the step budget ran out before a final answer.";
  } else if (kind == BudgetKind::iterations) {
    text = fmt::format("{} {}.", stopped, before);
  } else {
    text = fmt::format("{}: the {} budget ran out {}.", stopped, budget_name(kind), before);
  }
  const std::string evidence = describe_last_evidence(last);
  if (!evidence.empty()) {
    text += fmt::format("\nLast verifier evidence:\n{}",
                        keep_head_and_tail(evidence, k_notice_excerpt));
  }
  return text;
}

} // namespace ralph::loop
