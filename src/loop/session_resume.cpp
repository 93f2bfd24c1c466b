#include "ralph/loop/session_resume.h"

#include "ralph/core/message_json.h"
#include "ralph/loop/store_journal.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace ralph::loop {
namespace {

agent::AgentStop stop_from(const std::string& name) {
  for (auto stop : {agent::AgentStop::answered, agent::AgentStop::max_steps,
                    agent::AgentStop::cancelled, agent::AgentStop::failed}) {
    if (name == agent::to_string(stop)) {
      return stop;
    }
  }
  return agent::AgentStop::failed;
}

verify::Outcome outcome_from(const std::string& name) {
  if (name == "pass") {
    return verify::Outcome::pass;
  }
  return name == "fail" ? verify::Outcome::fail : verify::Outcome::error;
}

verify::Verdict verdict_from(const store::VerdictRow& row) {
  verify::Verdict verdict;
  verdict.verifier = row.verifier;
  verdict.result = outcome_from(row.result);
  verdict.category = row.category;
  verdict.feedback = row.feedback;
  verdict.reasoning = row.reasoning;
  verdict.policy = row.policy;
  verdict.model = row.model;
  verdict.usage.input_tokens = row.input_tokens;
  verdict.usage.output_tokens = row.output_tokens;
  verdict.duration_ms = row.duration_ms;
  const auto evidence = nlohmann::json::parse(row.evidence_json, nullptr, false);
  if (evidence.is_object()) {
    verify::CommandEvidence out;
    out.command = evidence.value("command", "");
    if (evidence.contains("exit_code") && evidence["exit_code"].is_number_integer()) {
      out.exit_code = evidence["exit_code"].get<int>();
    }
    out.duration_ms = evidence.value("duration_ms", std::int64_t{0});
    out.started_at = evidence.value("started_at", "");
    out.finished_at = evidence.value("finished_at", "");
    out.excerpt = evidence.value("excerpt", "");
    out.runs = evidence.value("runs", 1);
    out.passes = evidence.value("passes", 0);
    out.output = row.output;
    verdict.evidence = std::move(out);
  }
  return verdict;
}

AttemptRecord attempt_from(const store::AttemptRow& row,
                           const std::vector<store::VerdictRow>& verdicts) {
  AttemptRecord record;
  record.iteration = row.iteration;
  record.answer = row.answer;
  record.stop = stop_from(row.stop);
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
      record.verdicts.push_back(verdict_from(verdict));
    }
  }
  return record;
}

Result<std::vector<Message>> messages(const std::string& json, const std::string& what) {
  return messages_from_json(json, what);
}

} // namespace

Result<ResumedRun> resume_from_record(const store::SessionRecord& record) {
  const store::SessionRow& session = record.session;
  auto point = resume_point_from_json(session.resume_json);
  if (!point) {
    return tl::unexpected(point.error());
  }
  ResumedRun out;
  out.state.feedback_given = point->feedback_given;
  out.state.runtime_summary = point->runtime_summary;
  out.state.spent.usage.input_tokens = session.input_tokens;
  out.state.spent.usage.output_tokens = session.output_tokens;
  out.state.spent.cost_usd = session.cost_usd;
  out.state.spent.cost_known = session.cost_known;
  out.state.spent.elapsed_ms = session.elapsed_ms;

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
    auto start = messages(unfinished->start_json,
                          fmt::format("session {} attempt {}", session.id, unfinished->iteration));
    if (!start) {
      return tl::unexpected(start.error());
    }
    out.conversation = std::move(*start);
    return out;
  }
  if (point->next_iteration > last_finished) {
    out.state.next_iteration = point->next_iteration;
    out.conversation = std::move(point->conversation);
    return out;
  }
  // The last attempt ended the run: the next one needs the feedback it never got.
  const store::AttemptRow& last = attempts.back();
  auto start =
      messages(last.start_json, fmt::format("session {} attempt {}", session.id, last.iteration));
  auto added = messages(last.messages_json,
                        fmt::format("session {} attempt {} messages", session.id, last.iteration));
  if (!start || !added) {
    return tl::unexpected(!start ? start.error() : added.error());
  }
  out.conversation = std::move(*start);
  out.conversation.insert(out.conversation.end(), added->begin(), added->end());
  out.state.next_iteration = last.iteration + 1;
  out.state.feedback_pending = true;
  return out;
}

} // namespace ralph::loop
