#include "ralph/loop/session_resume.h"

#include "ralph/core/message_json.h"
#include "ralph/core/try.h"
#include "ralph/loop/records.h"
#include "ralph/loop/store_journal.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace ralph::loop {
namespace {

AttemptRecord attempt_from(const store::AttemptRow& row,
                           const std::vector<store::VerdictRow>& verdicts) {
  AttemptRecord record;
  record.iteration = row.iteration;
  record.answer = row.answer;
  record.stop = value_of(agent::k_agent_stop_names, row.stop).value_or(agent::AgentStop::failed);
  record.steps = row.steps;
  record.tool_calls = row.tool_calls;
  record.usage.input_tokens = row.input_tokens;
  record.usage.output_tokens = row.output_tokens;
  record.duration_ms = row.duration_ms;
  record.verified = row.verified;
  record.skip_reason = row.skip_reason;
  record.passed = row.passed;
  record.feedback = row.feedback;
  for (const auto& verdict : verdicts) {
    if (verdict.iteration == row.iteration) {
      record.verdicts.push_back(verdict_from_row(verdict));
    }
  }
  return record;
}

} // namespace

BudgetCounters spent_of(const store::SessionRow& session) {
  BudgetCounters out;
  out.usage.input_tokens = session.input_tokens;
  out.usage.output_tokens = session.output_tokens;
  out.usage.estimated = session.usage_estimated;
  out.cost_usd = session.cost_usd;
  out.cost_known = session.cost_known;
  out.elapsed_ms = session.elapsed_ms;
  return out;
}

Result<ResumedRun> resume_from_record(const store::SessionRecord& record) {
  const store::SessionRow& session = record.session;
  TRY_ASSIGN(ResumePoint point, resume_point_from_json(session.resume_json));
  ResumedRun out;
  out.state.feedback_given = point.feedback_given;
  out.state.runtime_summary = point.runtime_summary;
  out.state.spent = spent_of(session);

  std::vector<store::AttemptRow> attempts = record.attempts;
  std::sort(attempts.begin(), attempts.end(),
            [](const auto& a, const auto& b) { return a.iteration < b.iteration; });
  const store::AttemptRow* unfinished = nullptr;
  for (const auto& attempt : attempts) {
    if (attempt.finished) {
      out.state.attempts.push_back(attempt_from(attempt, record.verdicts));
    } else {
      unfinished = &attempt; // only the last one can be: each attempt ends before the next
    }
  }

  const int last_finished = out.state.attempts.empty() ? 0 : out.state.attempts.back().iteration;
  if (unfinished != nullptr && unfinished->iteration > last_finished) {
    // Killed during this attempt: it starts over from where it started.
    out.state.next_iteration = unfinished->iteration;
    TRY_ASSIGN(out.conversation, messages_from_json(unfinished->start_json,
                                                    fmt::format("session {} attempt {}", session.id,
                                                                unfinished->iteration)));
    return out;
  }
  if (point.next_iteration > last_finished) {
    out.state.next_iteration = point.next_iteration;
    out.conversation = std::move(point.conversation);
    return out;
  }
  const auto last_row = std::find_if(attempts.rbegin(), attempts.rend(), [&](const auto& a) {
    return a.finished && a.iteration == last_finished;
  });
  if (session.status == Status::interrupted && last_row != attempts.rend() && !last_row->passed) {
    // Stopped during the attempt or its verification (Ctrl-C, SIGTERM, a batch's budget): it
    // never had its chance, so it runs again from where it started; what it spent still counts.
    out.state.attempts.pop_back();
    out.state.next_iteration = last_row->iteration;
    TRY_ASSIGN(out.conversation, messages_from_json(last_row->start_json,
                                                    fmt::format("session {} attempt {}", session.id,
                                                                last_row->iteration)));
    return out;
  }
  // The last attempt ended the run: the next one needs the feedback it never got.
  const store::AttemptRow& last = attempts.back();
  TRY_ASSIGN(out.conversation,
             messages_from_json(last.start_json,
                                fmt::format("session {} attempt {}", session.id, last.iteration)));
  TRY_ASSIGN(const std::vector<Message> added,
             messages_from_json(last.messages_json, fmt::format("session {} attempt {} messages",
                                                                session.id, last.iteration)));
  out.conversation.insert(out.conversation.end(), added.begin(), added.end());
  out.state.next_iteration = last.iteration + 1;
  out.state.feedback_pending = true;
  return out;
}

} // namespace ralph::loop
