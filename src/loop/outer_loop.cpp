#include "ralph/loop/outer_loop.h"

#include "attempt_tracker.h"
#include "feedback.h"
#include "run_verifiers.h"
#include "stall_detector.h"
#include "test_progress.h"

#include "ralph/core/text.h"
#include "ralph/core/time.h"
#include "ralph/loop/ending.h"
#include "ralph/verify/completion_marker.h"
#include "ralph/verify/judge_rules.h"
#include "ralph/verify/trigger.h"

#include <climits>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>

namespace ralph::loop {
namespace {

// The agent's own "I cannot proceed": a last line starting with `BLOCKED:`.
std::optional<std::string> blocked_reason(std::string_view answer) {
  const std::string_view body = trim(answer);
  const std::size_t newline = body.find_last_of('\n');
  const std::string_view last =
      trim(newline == std::string_view::npos ? body : body.substr(newline + 1));
  constexpr std::string_view k_prefix = "BLOCKED:";
  if (!starts_with_ignoring_case(last, k_prefix)) {
    return std::nullopt;
  }
  return std::string(trim(last.substr(k_prefix.size())));
}

// True when the attempt has verdicts and every one passed: nothing was let through unchecked.
bool fully_verified(const AttemptRecord& record) {
  return !record.verdicts.empty() &&
         std::all_of(record.verdicts.begin(), record.verdicts.end(),
                     [](const verify::Verdict& v) { return v.result == verify::Outcome::pass; });
}

int score(const AttemptRecord& attempt) {
  if (attempt.passed) {
    return INT_MAX;
  }
  return static_cast<int>(std::count_if(attempt.verdicts.begin(), attempt.verdicts.end(),
                                        [](const auto& v) { return !verdict_failed(v); }));
}

std::optional<event::TestCounts> test_counts(const verify::Verdict& verdict,
                                             const TestChange& change) {
  if (!verdict.tests) {
    return std::nullopt;
  }
  return event::TestCounts{.runner = verdict.tests->runner,
                           .failed = verdict.tests->failed,
                           .passed = verdict.tests->passed,
                           .total = verdict.tests->total,
                           .failed_before = change.failed_before};
}

} // namespace

// One run of the loop: its counters, its record so far, and the steps of an attempt.
class OuterLoop::Run {
public:
  Run(OuterLoop& loop, std::vector<Message>& conversation, const CancelToken& cancel,
      EventSink& events, const LoopState& resume)
      : m_loop(loop), m_options(loop.m_options), m_clock(loop.m_clock),
        m_conversation(conversation), m_cancel(cancel), m_verifying(!loop.m_verifiers.empty()),
        m_max_iterations(m_verifying ? std::max(1, m_options.loop.max_iterations) : 1),
        m_budget(m_options.budget, m_max_iterations, m_options.prices,
                 m_clock.now() - std::chrono::milliseconds(resume.spent.elapsed_ms)),
        m_tracker(events, m_budget, m_clock,
                  m_options.evidence.enabled ? m_options.workspace : std::filesystem::path(),
                  loop.m_journal, m_options.evidence.marker),
        m_stall(m_options.loop.stall_after), m_feedback_given(resume.feedback_given),
        m_runtime_summary(resume.runtime_summary) {
    m_budget.carry(resume.spent.usage, resume.spent.cost_usd, resume.spent.cost_known);
    m_result.attempts = resume.attempts;
    for (const AttemptRecord& attempt : m_result.attempts) {
      note_best(attempt);
      (void)m_stall.observe(attempt); // replays what the detector had seen
      m_changes = m_tests.observe(attempt.iteration, attempt.verdicts);
    }
  }

  LoopResult run(int first_iteration, bool feedback_pending) {
    if (feedback_pending && !m_result.attempts.empty() && first_iteration <= m_max_iterations) {
      AttemptRecord& last = m_result.attempts.back();
      const ResumePoint next = give_feedback(last, {}, !last.verified);
      if (journal() != nullptr) {
        journal()->resumed(next);
      }
    }
    if (first_iteration > m_max_iterations) {
      m_ending = {Status::budget_exhausted,
                  fmt::format("all {} attempts were used; raise the iterations to continue",
                              m_max_iterations),
                  BudgetKind::iterations};
    }
    for (int iteration = first_iteration; m_ending.status == Status::active; ++iteration) {
      attempt(iteration);
    }
    return finish();
  }

private:
  void attempt(int iteration) {
    m_budget.set_iteration(iteration);
    m_changes.clear();
    const CancelToken token = m_cancel.child(m_budget.deadline(), m_clock);
    m_tracker.begin(iteration, token);
    m_tracker.show(event::AttemptStarted{.max_iterations = m_max_iterations});
    m_tracker.warn_budgets();
    if (journal() != nullptr) {
      journal()->attempt_started(iteration, m_conversation);
    }

    const std::size_t begin = m_conversation.size();
    const auto attempt_started = m_clock.now();
    m_outcome = run_agent(token);
    const verify::MarkerScan scan =
        verify::scan_completion_marker(m_outcome.answer, m_options.evidence.marker);

    AttemptRecord& record = m_result.attempts.emplace_back();
    record.iteration = iteration;
    record.answer = scan.visible;
    record.stop = m_outcome.stop;
    record.steps = m_outcome.steps;
    record.tool_calls = m_outcome.tool_calls;
    record.usage = m_outcome.usage;
    record.duration_ms = ms_since(attempt_started);
    const std::vector<verify::ToolRecord> tools = m_tracker.take_tool_records();
    m_tracker.show(event::AttemptFinished{.answer = record.answer,
                                          .stop = agent::to_string(m_outcome.stop),
                                          .duration = std::chrono::milliseconds(record.duration_ms),
                                          .usage = record.usage});

    report_changed_rules(iteration);
    end_without_verdict(record);
    bool retry_unverified = false;
    if (m_ending.status == Status::active) {
      retry_unverified = precheck(record);
    }
    if (m_ending.status == Status::active && record.skip_reason.empty()) {
      verify_attempt(record, begin, tools);
    }
    note_best(record);
    if (m_ending.status == Status::active) {
      end_after_verdicts(record);
    }

    // What the attempt added, before feedback may replace the history.
    const std::vector<Message> added(m_conversation.begin() + static_cast<std::ptrdiff_t>(begin),
                                     m_conversation.end());
    std::optional<ResumePoint> next;
    if (m_ending.status == Status::active) {
      next = give_feedback(record, tools, retry_unverified);
    }
    if (journal() != nullptr) {
      journal()->attempt_finished(record, added, m_budget.counters(m_clock.now()),
                                  m_result.best_iteration, next);
      if (const auto failure = journal()->failure(); failure && m_ending.status == Status::active) {
        m_ending = {Status::failed, "the session record could not be written: " + failure->message};
      }
    }
    if (m_ending.status == Status::active && m_options.hold && m_options.hold()) {
      m_ending = {Status::interrupted, fmt::format("paused after attempt {}", iteration)};
    }
  }

  // The agent's work on the attempt. An agent CLI stopped by its plan's usage limit is not a
  // failed attempt: the run waits until the limit resets and the agent goes on, as long as the
  // reset comes within the time budget.
  agent::AgentOutcome run_agent(const CancelToken& token) {
    agent::AgentOutcome outcome = m_loop.m_agent.run(m_conversation, token, m_tracker, m_tracker);
    for (int waits = 0; outcome.usage_limit; ++waits) {
      if (!wait_for_reset(*outcome.usage_limit, waits, token, outcome)) {
        break;
      }
      // What the agent is told when it goes on; an agent CLI resumes its session with it.
      m_conversation.push_back(
          Message{.role = Role::user,
                  .content = "The usage limit has reset. Go on with the task where you left off."});
      agent::AgentOutcome next = m_loop.m_agent.run(m_conversation, token, m_tracker, m_tracker);
      next.steps += outcome.steps;
      next.tool_calls += outcome.tool_calls;
      next.usage += outcome.usage;
      outcome = std::move(next);
    }
    return outcome;
  }

  // Waits for `limit` to reset and returns true, or returns false with `outcome`'s error saying
  // why the run cannot wait: no reset time, a reset after the time budget, or a limit that
  // still holds after waiting.
  bool wait_for_reset(const agent::UsageLimit& limit, int waits, const CancelToken& token,
                      agent::AgentOutcome& outcome) {
    constexpr int k_max_waits = 3;
    if (!outcome.error) {
      outcome.error = Error{.kind = ErrorKind::provider, .message = limit.message};
    }
    Error& error = *outcome.error;
    if (!limit.resets_at) {
      error.message = fmt::format("{}'s usage limit is reached and it did not say when it resets: "
                                  "{}",
                                  limit.agent, limit.message);
      return false;
    }
    if (waits >= k_max_waits) {
      error.message = fmt::format("{}'s usage limit is still reached after {} waits for its "
                                  "reset: {}",
                                  limit.agent, waits, limit.message);
      return false;
    }
    const auto wait = std::max(std::chrono::milliseconds(0),
                               std::chrono::duration_cast<std::chrono::milliseconds>(
                                   *limit.resets_at - m_clock.wall_now()));
    const std::string when = iso8601_utc(*limit.resets_at);
    if (m_budget.deadline() != Clock::time_point::max() &&
        m_clock.now() + wait > m_budget.deadline()) {
      error.message = fmt::format("{}'s usage limit is reached until {}, after the time budget "
                                  "ends; not waiting: {}",
                                  limit.agent, when, limit.message);
      return false;
    }
    m_tracker.show(event::AgentLimitWait{.agent = limit.agent,
                                         .message = limit.message,
                                         .resets_at = *limit.resets_at,
                                         .wait = wait});
    return m_clock.sleep_for(wait, token);
  }

  // The rules stay the user's: a changed copy is not what the agent and the judge go by.
  void report_changed_rules(int iteration) {
    for (const verify::JudgeRulesFile& start : m_options.rules) {
      if (!start.error.empty() || std::find(m_rules_changed.begin(), m_rules_changed.end(),
                                            start.name) != m_rules_changed.end()) {
        continue;
      }
      const std::string names[] = {start.name};
      const auto now =
          verify::read_judge_rules(m_options.workspace, names, start.content.size() + 1);
      if (now.size() == 1 && now[0].content == start.content && now[0].size == start.size) {
        continue;
      }
      m_rules_changed.push_back(start.name);
      m_tracker.show(event::Warning{
          .text = fmt::format("attempt {} changed {}; the agent and the judge keep the rules as "
                              "they were when the run started",
                              iteration, start.name)});
    }
  }

  // Interrupted, out of budget, failed, blocked, or nothing to verify with.
  void end_without_verdict(const AttemptRecord& record) {
    if (m_cancel.cancelled()) {
      m_ending = {Status::interrupted, fmt::format("stopped during attempt {}", record.iteration)};
    } else if (m_tracker.stopped_by_journal()) {
      m_ending = {Status::failed, "the session record could not be written: " +
                                      journal()->failure().value_or(Error{}).message};
    } else if (m_outcome.stop == agent::AgentStop::cancelled) {
      m_ending = budget_ran_out(m_budget.exhausted(m_clock.now()).value_or(BudgetKind::time),
                                "during", record.iteration);
    } else if (m_outcome.stop == agent::AgentStop::failed) {
      m_ending = {Status::failed, m_outcome.error ? m_outcome.error->message : "the agent failed"};
    } else if (auto reason = blocked_reason(record.answer)) {
      m_ending = {Status::blocked, "the agent is blocked: " + *reason};
    } else if (const auto spent = m_budget.exhausted(m_clock.now()); spent && m_verifying) {
      // The attempt's own calls used the budget up: verifying would spend more.
      m_ending = budget_ran_out(*spent, "during", record.iteration);
    } else if (!m_verifying) {
      m_ending = m_outcome.stop == agent::AgentStop::max_steps
                     ? Ending{Status::budget_exhausted,
                              "the step budget ran out before a final answer", BudgetKind::steps}
                     : Ending{Status::completed, "answered (no verifier configured)"};
    }
  }

  // Pre-checks and the trigger: is this answer to be verified at all? Returns true when the
  // attempt is to be retried without a verdict.
  bool precheck(AttemptRecord& record) {
    const bool retry = m_outcome.stop == agent::AgentStop::max_steps || trim(record.answer).empty();
    if (m_outcome.stop == agent::AgentStop::max_steps) {
      record.skip_reason = "intermediate tool-call turn: the step budget ran out with tool calls "
                           "pending";
    } else if (trim(record.answer).empty()) {
      record.skip_reason = "empty answer";
    } else if (m_options.already_delivered && m_options.already_delivered()) {
      record.skip_reason = "content already delivered";
    } else if (const auto trigger =
                   verify::decide_trigger(m_options.loop.trigger, m_options.evidence.marker,
                                          m_outcome.answer, m_options.loop.heartbeat);
               !trigger.verify && !failed_verification_before()) {
      // Once an attempt failed verification, the trigger cannot let a later one through: an
      // agent could drop the keyword or marker to be delivered unverified.
      record.skip_reason = trigger.reason;
    } else if (record.iteration == m_max_iterations && !m_options.loop.verify_final) {
      record.skip_reason = "final attempt not verified (verify_final is off)";
    }
    if (!record.skip_reason.empty()) {
      m_tracker.show(event::VerificationSkipped{.reason = record.skip_reason});
      if (!retry) {
        m_ending = {Status::completed, "delivered unverified: " + record.skip_reason};
      }
    }
    return retry;
  }

  void verify_attempt(AttemptRecord& record, std::size_t begin,
                      const std::vector<verify::ToolRecord>& tools) {
    verify::Attempt attempt;
    attempt.iteration = record.iteration;
    attempt.max_iterations = m_max_iterations;
    attempt.goal = m_options.goal;
    attempt.answer = record.answer;
    attempt.raw_answer = m_outcome.answer;
    attempt.conversation = m_conversation;
    attempt.attempt_begin = begin;
    attempt.tools = tools;
    attempt.metadata = {agent::to_string(m_outcome.stop), record.duration_ms, record.steps,
                        record.tool_calls};
    attempt.previous_feedback = m_feedback_given;
    attempt.workspace = m_options.workspace;
    attempt.output_dir = m_options.output_dir;
    attempt.heartbeat = m_options.loop.heartbeat;
    for (const auto& entry : m_loop.m_verifiers) {
      m_tracker.show(event::VerifierStarted{.verifier = entry.verifier->name()});
    }
    // A fresh token: the attempt's may have been cancelled by a budget at its very end.
    record.verdicts =
        run_verifiers(m_loop.m_verifiers, attempt, m_cancel.child(m_budget.deadline(), m_clock));
    record.verified = true;
    record.passed = std::none_of(record.verdicts.begin(), record.verdicts.end(),
                                 [](const auto& v) { return verdict_failed(v); });
    m_changes = m_tests.observe(record.iteration, record.verdicts);
    for (std::size_t i = 0; i < record.verdicts.size(); ++i) {
      const verify::Verdict& verdict = record.verdicts[i];
      m_tracker.count_verifier_usage(verdict.model, verdict.usage);
      m_tracker.show(event::VerdictGiven{.verifier = verdict.verifier,
                                         .result = verdict.result,
                                         .category = std::string(verdict.category.name()),
                                         .feedback = verdict.feedback,
                                         .policy = verdict.policy,
                                         .exit_code = verdict.evidence ? verdict.evidence->exit_code
                                                                       : std::nullopt,
                                         .duration = std::chrono::milliseconds(verdict.duration_ms),
                                         .usage = verdict.usage,
                                         .tests = test_counts(verdict, m_changes[i])});
    }
    m_tracker.warn_budgets();
  }

  void end_after_verdicts(const AttemptRecord& record) {
    if (m_cancel.cancelled()) {
      m_ending = {Status::interrupted,
                  fmt::format("stopped while verifying attempt {}", record.iteration)};
      return;
    }
    m_ending = ending_after_verdicts(record, m_max_iterations, m_budget.exhausted(m_clock.now()));
    if (m_ending.status != Status::active) {
      return;
    }
    if (auto stalled = m_stall.observe(record)) {
      m_ending = {Status::stalled, *stalled};
    }
  }

  // Tells the agent what to fix, in the configured mode; returns where the next attempt starts.
  ResumePoint give_feedback(AttemptRecord& record, const std::vector<verify::ToolRecord>& tools,
                            bool retry_unverified) {
    const std::string marker =
        m_options.evidence.enabled ? m_options.evidence.marker : std::string();
    record.feedback = retry_unverified
                          ? precheck_feedback(record, m_outcome.steps)
                          : failure_feedback(record.verdicts, m_changes, record.iteration,
                                             m_max_iterations, marker);
    const std::string summary = summarize_attempt(record, tools);
    m_runtime_summary = keep_head_and_tail(
        m_runtime_summary.empty() ? summary : m_runtime_summary + "\n\n" + summary,
        m_options.loop.runtime_summary_chars);
    std::string told = record.feedback;
    if (m_options.loop.feedback == FeedbackMode::append) {
      m_conversation.push_back(Message{.role = Role::user, .content = record.feedback});
    } else {
      Continuation continuation;
      continuation.goal = m_options.goal;
      continuation.iteration = record.iteration + 1;
      continuation.max_iterations = m_max_iterations;
      continuation.runtime_summary = m_runtime_summary;
      continuation.last_evidence = describe_last_evidence(record.verdicts);
      continuation.reason = record.feedback;
      continuation.marker = marker;
      told = continuation_prompt(continuation);
      m_conversation.clear();
      m_conversation.push_back(Message{.role = Role::user, .content = told});
    }
    m_feedback_given.push_back(record.feedback);
    m_tracker.show(event::FeedbackGiven{.mode = m_options.loop.feedback, .text = told});
    return ResumePoint{record.iteration + 1, m_conversation, m_feedback_given, m_runtime_summary};
  }

  LoopResult finish() {
    m_result.status = m_ending.status;
    m_result.reason = m_ending.reason;
    const std::vector<verify::Verdict> no_verdicts;
    const AttemptRecord* last = m_result.attempts.empty() ? nullptr : &m_result.attempts.back();
    m_result.answer = last != nullptr ? last->answer : std::string();
    m_result.verified =
        m_ending.status == Status::completed && last != nullptr && fully_verified(*last);
    if (m_ending.status == Status::budget_exhausted && m_ending.budget) {
      m_result.notice = budget_notice(static_cast<int>(m_result.attempts.size()), *m_ending.budget,
                                      m_verifying, last != nullptr ? last->verdicts : no_verdicts);
      m_result.answer =
          m_result.answer.empty() ? m_result.notice : m_result.answer + "\n\n" + m_result.notice;
    }
    if (m_ending.status == Status::failed || m_ending.status == Status::interrupted) {
      m_result.error = m_outcome.error;
      if (!m_result.error && m_ending.status == Status::failed) {
        m_result.error = Error{ErrorKind::store, m_ending.reason};
      }
    }
    const BudgetCounters spent = m_budget.counters(m_clock.now());
    m_result.usage = spent.usage;
    m_result.cost_usd = spent.cost_usd;
    m_result.cost_known = spent.cost_known;
    m_result.duration_ms = spent.elapsed_ms;

    m_tracker.show(event::RunEnded{.status = m_result.status,
                                   .reason = m_result.reason,
                                   .verified = m_result.verified,
                                   .attempts = static_cast<int>(m_result.attempts.size()),
                                   .usage = m_result.usage,
                                   .duration = std::chrono::milliseconds(m_result.duration_ms)});
    if (journal() != nullptr) {
      journal()->finished(m_result);
    }
    return std::move(m_result);
  }

  void note_best(const AttemptRecord& record) {
    if (m_result.best_iteration == 0) {
      m_result.best_iteration = record.iteration;
      return;
    }
    const auto best =
        std::find_if(m_result.attempts.begin(), m_result.attempts.end(),
                     [&](const auto& a) { return a.iteration == m_result.best_iteration; });
    if (best == m_result.attempts.end() || score(record) >= score(*best)) {
      m_result.best_iteration = record.iteration;
    }
  }

  bool failed_verification_before() const {
    // The attempt being decided is already in the list, unverified so far.
    return std::any_of(m_result.attempts.begin(), m_result.attempts.end(),
                       [](const AttemptRecord& a) { return a.verified && !a.passed; });
  }

  Journal* journal() const { return m_loop.m_journal; }

  std::int64_t ms_since(Clock::time_point start) const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(m_clock.now() - start).count();
  }

  OuterLoop& m_loop;
  const LoopOptions& m_options;
  Clock& m_clock;
  std::vector<Message>& m_conversation;
  const CancelToken& m_cancel;
  bool m_verifying;
  int m_max_iterations;
  BudgetTracker m_budget;
  AttemptTracker m_tracker;
  StallDetector m_stall;
  TestProgress m_tests;
  std::vector<TestChange> m_changes; // the latest verified attempt's, one per verdict
  std::vector<std::string> m_feedback_given;
  std::string m_runtime_summary;
  agent::AgentOutcome m_outcome;
  std::vector<std::string> m_rules_changed; // reported once each
  LoopResult m_result;
  Ending m_ending;
};

OuterLoop::OuterLoop(agent::Agent& agent, std::vector<VerifierEntry> verifiers, LoopOptions options,
                     Clock& clock, Journal* journal)
    : m_agent(agent), m_verifiers(std::move(verifiers)), m_options(std::move(options)),
      m_clock(clock), m_journal(journal) {}

LoopResult OuterLoop::run(std::vector<Message>& conversation, const CancelToken& cancel,
                          EventSink& events, const LoopState& resume) {
  Run run(*this, conversation, cancel, events, resume);
  return run.run(std::max(1, resume.next_iteration), resume.feedback_pending);
}

} // namespace ralph::loop
