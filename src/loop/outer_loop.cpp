#include "ralph/loop/outer_loop.h"

#include "attempt_observer.h"
#include "feedback.h"
#include "run_verifiers.h"
#include "stall_detector.h"

#include "ralph/core/text.h"
#include "ralph/verify/completion_marker.h"

#include <climits>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace ralph::loop {
namespace {

using Clock = std::chrono::steady_clock;

std::int64_t ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// The agent's own "I cannot proceed": a last line starting with `BLOCKED:`.
std::optional<std::string> blocked_reason(std::string_view answer) {
  const std::string_view body = trim(answer);
  const std::size_t newline = body.find_last_of('\n');
  const std::string_view last =
      trim(newline == std::string_view::npos ? body : body.substr(newline + 1));
  constexpr std::string_view k_prefix = "BLOCKED:";
  if (last.size() < k_prefix.size()) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < k_prefix.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(last[i])) != k_prefix[i]) {
      return std::nullopt;
    }
  }
  return std::string(trim(last.substr(k_prefix.size())));
}

int score(const AttemptRecord& attempt) {
  if (attempt.passed) {
    return INT_MAX;
  }
  return static_cast<int>(std::count_if(attempt.verdicts.begin(), attempt.verdicts.end(),
                                        [](const auto& v) { return !verdict_failed(v); }));
}

Event loop_event(EventType type) {
  Event event;
  event.type = type;
  return event;
}

// The run's end, as decided inside the attempt loop.
struct Ending {
  Status status = Status::active;
  std::string reason;
  std::optional<BudgetKind> budget; // which budget ran out, for the notice
};

} // namespace

const char* to_string(ErrorPolicy policy) {
  return policy == ErrorPolicy::fail_open ? "fail_open" : "fail_closed";
}

const char* to_string(FeedbackMode mode) {
  return mode == FeedbackMode::append ? "append" : "continue";
}

OuterLoop::OuterLoop(agent::Agent& agent, std::vector<VerifierEntry> verifiers, LoopOptions options)
    : m_agent(agent), m_verifiers(std::move(verifiers)), m_options(std::move(options)) {}

LoopResult OuterLoop::run(std::vector<Message>& conversation, const CancelToken& cancel,
                          EventSink& events) {
  const auto started = Clock::now();
  BudgetTracker budget(m_options.budget, m_options.prices, started);
  AttemptObserver observer(events, budget, m_options.agent_model,
                           m_options.verifier_first ? m_options.workspace
                                                    : std::filesystem::path());
  StallDetector stall(m_options.stall_after);
  const bool verifying = !m_verifiers.empty();
  const int max_iterations = verifying ? std::max(1, m_options.budget.max_iterations) : 1;

  LoopResult result;
  Ending ending;
  std::vector<std::string> feedback_given;
  std::string runtime_summary;
  std::optional<agent::AgentOutcome> last_outcome;

  for (int iteration = 1; ending.status == Status::active; ++iteration) {
    budget.set_iteration(iteration);
    const CancelToken attempt_token = cancel.child(budget.deadline());
    observer.begin(iteration, attempt_token);
    Event started_event = loop_event(EventType::attempt_started);
    started_event.number = max_iterations;
    observer.on_event(started_event);
    observer.warn_budgets();

    const std::size_t attempt_begin = conversation.size();
    const auto attempt_started = Clock::now();
    agent::AgentOutcome outcome = m_agent.run(conversation, attempt_token, observer);
    const verify::MarkerScan scan =
        verify::scan_completion_marker(outcome.answer, m_options.marker);

    AttemptRecord& record = result.attempts.emplace_back();
    record.iteration = iteration;
    record.answer = scan.visible;
    record.stop = outcome.stop;
    record.steps = outcome.steps;
    record.tool_calls = outcome.tool_calls;
    record.usage = outcome.usage;
    record.duration_ms = ms_since(attempt_started);
    std::vector<verify::ToolRecord> tools = observer.take_tool_records();

    Event finished_event = loop_event(EventType::attempt_finished);
    finished_event.text = record.answer;
    finished_event.detail = agent::to_string(outcome.stop);
    finished_event.duration_ms = record.duration_ms;
    finished_event.usage = record.usage;
    observer.on_event(finished_event);

    // Ends that need no verdict.
    if (cancel.cancelled()) {
      ending = {Status::interrupted, "interrupted"};
    } else if (outcome.stop == agent::AgentStop::cancelled) {
      const auto spent = budget.exhausted(Clock::now()).value_or(BudgetKind::time);
      ending = {Status::budget_exhausted,
                fmt::format("the {} budget ran out during attempt {}", to_string(spent), iteration),
                spent};
    } else if (outcome.stop == agent::AgentStop::failed) {
      ending = {Status::failed, outcome.error ? outcome.error->message : "the agent failed"};
    } else if (auto reason = blocked_reason(record.answer)) {
      ending = {Status::blocked, "the agent is blocked: " + *reason};
    } else if (const auto spent = budget.exhausted(Clock::now()); spent && verifying) {
      // The attempt's own calls used the budget up: verifying would spend more.
      ending = {
          Status::budget_exhausted,
          fmt::format("the {} budget ran out during attempt {}", to_string(*spent), iteration),
          spent};
    } else if (!verifying) {
      ending = outcome.stop == agent::AgentStop::max_steps
                   ? Ending{Status::budget_exhausted,
                            "the step budget ran out before a final answer", BudgetKind::steps}
                   : Ending{Status::completed, "answered (no verifier configured)"};
    }
    last_outcome = std::move(outcome);
    if (ending.status != Status::active) {
      break;
    }
    const agent::AgentOutcome& attempt_outcome = *last_outcome;

    // Pre-checks and the trigger: is this answer to be verified at all?
    const bool retry_unverified =
        attempt_outcome.stop == agent::AgentStop::max_steps || trim(record.answer).empty();
    if (attempt_outcome.stop == agent::AgentStop::max_steps) {
      record.skip_reason = "intermediate tool-call turn: the step budget ran out with tool calls "
                           "pending";
    } else if (trim(record.answer).empty()) {
      record.skip_reason = "empty answer";
    } else if (m_options.already_delivered && m_options.already_delivered()) {
      record.skip_reason = "content already delivered";
    } else if (const auto trigger = verify::decide_trigger(
                   m_options.trigger, attempt_outcome.answer, m_options.heartbeat);
               !trigger.verify) {
      record.skip_reason = trigger.reason;
    } else if (iteration == max_iterations && !m_options.verify_final) {
      record.skip_reason = "final attempt not verified (verify_final is off)";
    }
    if (!record.skip_reason.empty()) {
      Event skipped = loop_event(EventType::verification_skipped);
      skipped.detail = record.skip_reason;
      observer.on_event(skipped);
      if (!retry_unverified) {
        ending = {Status::completed, "delivered unverified: " + record.skip_reason};
        break;
      }
    } else {
      verify::Attempt attempt;
      attempt.iteration = iteration;
      attempt.max_iterations = max_iterations;
      attempt.goal = m_options.goal;
      attempt.answer = record.answer;
      attempt.raw_answer = attempt_outcome.answer;
      attempt.conversation = conversation;
      attempt.attempt_begin = attempt_begin;
      attempt.tools = tools;
      attempt.metadata = {agent::to_string(attempt_outcome.stop), record.duration_ms, record.steps,
                          record.tool_calls};
      attempt.previous_feedback = feedback_given;
      attempt.workspace = m_options.workspace;
      attempt.heartbeat = m_options.heartbeat;
      for (const auto& entry : m_verifiers) {
        Event verifier_event = loop_event(EventType::verifier_started);
        verifier_event.name = entry.verifier->name();
        observer.on_event(verifier_event);
      }
      // A fresh token: the attempt's may have been cancelled by a budget at its very end.
      record.verdicts = run_verifiers(m_verifiers, attempt, cancel.child(budget.deadline()));
      record.verified = true;
      record.passed = std::none_of(record.verdicts.begin(), record.verdicts.end(),
                                   [](const auto& v) { return verdict_failed(v); });
      for (const auto& verdict : record.verdicts) {
        budget.add(verdict.model, verdict.usage);
        Event verdict_event = loop_event(EventType::verdict);
        verdict_event.name = verdict.verifier;
        verdict_event.result = verify::to_string(verdict.result);
        verdict_event.category = verdict.category;
        verdict_event.text = verdict.feedback;
        verdict_event.detail = verdict.policy;
        verdict_event.duration_ms = verdict.duration_ms;
        verdict_event.usage = verdict.usage;
        if (verdict.evidence) {
          verdict_event.exit_code = verdict.evidence->exit_code;
        }
        observer.on_event(verdict_event);
      }
      observer.warn_budgets();
    }

    if (result.best_iteration == 0 ||
        score(record) >=
            score(result.attempts[static_cast<std::size_t>(result.best_iteration - 1)])) {
      result.best_iteration = iteration;
    }
    const auto blocking =
        std::find_if(record.verdicts.begin(), record.verdicts.end(), [](const verify::Verdict& v) {
          return v.result == verify::Outcome::fail && v.category == verify::category::blocked;
        });
    if (cancel.cancelled()) {
      ending = {Status::interrupted, "interrupted"};
    } else if (record.passed) {
      ending = {Status::completed, fmt::format("verified on attempt {}", iteration)};
    } else if (blocking != record.verdicts.end()) {
      ending = {Status::blocked, fmt::format("{} says the goal is blocked: {}", blocking->verifier,
                                             blocking->feedback)};
    } else if (const auto spent = budget.exhausted(Clock::now())) {
      ending = {Status::budget_exhausted,
                fmt::format("the {} budget ran out after attempt {}", to_string(*spent), iteration),
                spent};
    } else if (iteration >= max_iterations) {
      ending = {Status::budget_exhausted,
                fmt::format("{} of {} attempts used without passing verification", iteration,
                            max_iterations),
                BudgetKind::iterations};
    } else if (auto stalled = stall.observe(record)) {
      ending = {Status::stalled, *stalled};
    }
    if (ending.status != Status::active) {
      break;
    }

    // Feedback for the next attempt.
    const std::string marker = m_options.verifier_first ? m_options.marker : std::string();
    record.feedback = retry_unverified
                          ? precheck_feedback(record, attempt_outcome.steps)
                          : failure_feedback(record.verdicts, iteration, max_iterations, marker);
    runtime_summary = keep_head_and_tail(
        runtime_summary.empty() ? summarize_attempt(record, tools)
                                : runtime_summary + "\n\n" + summarize_attempt(record, tools),
        m_options.runtime_summary_chars);
    std::string told = record.feedback;
    if (m_options.feedback == FeedbackMode::append) {
      conversation.push_back(Message{.role = Role::user, .content = record.feedback});
    } else {
      Continuation continuation;
      continuation.goal = m_options.goal;
      continuation.iteration = iteration + 1;
      continuation.max_iterations = max_iterations;
      continuation.runtime_summary = runtime_summary;
      continuation.last_evidence = describe_last_evidence(record.verdicts);
      continuation.reason = record.feedback;
      continuation.marker = marker;
      told = continuation_prompt(continuation);
      conversation.clear();
      conversation.push_back(Message{.role = Role::user, .content = told});
    }
    feedback_given.push_back(record.feedback);
    Event feedback_event = loop_event(EventType::feedback);
    feedback_event.detail = to_string(m_options.feedback);
    feedback_event.text = told;
    observer.on_event(feedback_event);
  }

  result.status = ending.status;
  result.reason = ending.reason;
  const AttemptRecord& last = result.attempts.back();
  result.answer = last.answer;
  if (ending.status == Status::budget_exhausted && ending.budget) {
    result.notice =
        budget_notice(static_cast<int>(result.attempts.size()), *ending.budget, last.verdicts);
    result.answer = result.answer.empty() ? result.notice : result.answer + "\n\n" + result.notice;
  }
  if ((ending.status == Status::failed || ending.status == Status::interrupted) && last_outcome) {
    result.error = last_outcome->error;
  }
  result.usage = budget.usage();
  result.cost_usd = budget.cost_usd();
  result.cost_known = budget.cost_known();
  result.duration_ms = ms_since(started);

  Event status_event = loop_event(EventType::status);
  status_event.detail = to_string(result.status);
  status_event.text = result.reason;
  status_event.number = static_cast<std::int64_t>(result.attempts.size());
  status_event.usage = result.usage;
  status_event.duration_ms = result.duration_ms;
  observer.on_event(status_event);
  return result;
}

} // namespace ralph::loop
