#include "ralph/loop/store_journal.h"

#include "ralph/agent/agent_steps.h"
#include "ralph/core/json.h"
#include "ralph/core/message_json.h"
#include "ralph/core/time.h"
#include "ralph/core/try.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/loop/records.h"
#include "ralph/store/record_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <limits>

namespace ralph::loop {
namespace {

std::string now() {
  return iso8601_utc(std::chrono::system_clock::now());
}

} // namespace

StoreJournal::StoreJournal(store::SessionStore& store, store::SessionRow session, Redactor redactor,
                           store::TraceWriter* traces, EventSink& warnings)
    : m_store(store), m_session(std::move(session)), m_redactor(std::move(redactor)),
      m_traces(traces), m_warnings(warnings) {}

void StoreJournal::keep(Result<void> written) {
  if (!written && !m_failure) {
    m_failure = written.error();
  }
}

void StoreJournal::count(const BudgetCounters& counters) {
  m_session.input_tokens = counters.usage.input_tokens;
  m_session.output_tokens = counters.usage.output_tokens;
  m_session.cost_usd = counters.cost_usd;
  m_session.cost_known = counters.cost_known;
  m_session.elapsed_ms = counters.elapsed_ms;
  m_session.usage_estimated = counters.usage.estimated;
  m_session.updated_at = now();
}

std::string StoreJournal::redact_messages(std::span<const Message> messages) const {
  return m_redactor.redact_json(messages_to_json(messages));
}

void StoreJournal::attempt_started(int iteration, std::span<const Message> conversation) {
  m_attempt = store::AttemptRow();
  m_attempt.session_id = m_session.id;
  m_attempt.iteration = iteration;
  m_attempt.started_at = now();
  m_attempt.start_json = redact_messages(conversation);
  m_tools.clear();
  keep(m_store.save_attempt(m_attempt));
  m_session.iterations = iteration;
  m_session.updated_at = m_attempt.started_at;
  keep(m_store.update_session(m_session));
}

void StoreJournal::model_call(int iteration, const agent::ModelCall& call,
                              const BudgetCounters& counters) {
  store::ModelCallRow row;
  row.session_id = m_session.id;
  row.iteration = iteration;
  row.step = call.step;
  row.model = call.model;
  row.input_tokens = call.usage.input_tokens;
  row.output_tokens = call.usage.output_tokens;
  row.stop_reason = agent::stop_reason_name(call);
  row.at = now();
  count(counters);
  keep(m_store.add_model_call(row, m_session));
}

void StoreJournal::tool_call(int iteration, int seq, const verify::ToolRecord& record,
                             std::string_view result) {
  store::ToolCallRow row;
  row.session_id = m_session.id;
  row.iteration = iteration;
  row.seq = seq;
  row.call_id = record.id;
  row.name = record.name;
  row.arguments = m_redactor.redact_json(record.arguments);
  row.result = m_redactor.redact(result);
  row.exit_code = record.exit_code;
  row.is_error = record.is_error;
  row.changed_workspace = record.changed_workspace;
  row.duration_ms = record.duration_ms;
  row.at = now();
  keep(m_store.add_tool_call(row));
  m_tools.push_back(std::move(row));
}

void StoreJournal::attempt_finished(const AttemptRecord& attempt, std::span<const Message> added,
                                    const BudgetCounters& counters, int best_iteration,
                                    const std::optional<ResumePoint>& next) {
  m_attempt.finished = true;
  m_attempt.finished_at = now();
  m_attempt.messages_json = redact_messages(added);
  m_attempt.answer = m_redactor.redact(attempt.answer);
  m_attempt.stop = agent::to_string(attempt.stop);
  m_attempt.steps = attempt.steps;
  m_attempt.tool_calls = attempt.tool_calls;
  m_attempt.input_tokens = attempt.usage.input_tokens;
  m_attempt.output_tokens = attempt.usage.output_tokens;
  m_attempt.duration_ms = attempt.duration_ms;
  m_attempt.verified = attempt.verified;
  m_attempt.skip_reason = attempt.skip_reason;
  m_attempt.passed = attempt.passed;
  m_attempt.feedback = m_redactor.redact(attempt.feedback);

  std::vector<store::VerdictRow> verdicts;
  for (const auto& verdict : attempt.verdicts) {
    store::VerdictRow row = verdict_row(verdict, m_session.id, attempt.iteration,
                                        static_cast<int>(verdicts.size()) + 1, m_redactor);
    row.at = m_attempt.finished_at;
    verdicts.push_back(std::move(row));
  }
  count(counters);
  m_session.best_iteration = best_iteration;
  if (next) {
    m_session.resume_json = m_redactor.redact_json(resume_point_to_json(*next));
  }
  keep(m_store.finish_attempt(m_attempt, verdicts, m_session));

  if (m_traces != nullptr) {
    store::TraceEntry entry;
    entry.session_id = m_session.id;
    entry.goal = m_session.goal;
    entry.created_at = m_session.created_at;
    entry.iteration = attempt.iteration;
    entry.json = store::attempt_trace_json(m_session, m_attempt, m_tools, verdicts);
    const auto written = m_traces->write(entry);
    std::vector<std::string> warnings =
        written ? *written : std::vector<std::string>{written.error().message};
    for (auto& text : warnings) {
      m_warnings.on_event(Event{.payload = event::Warning{.text = "trace files: " + text}});
    }
  }
}

void StoreJournal::resumed(const ResumePoint& next) {
  m_session.resume_json = m_redactor.redact_json(resume_point_to_json(next));
  m_session.updated_at = now();
  keep(m_store.update_session(m_session));
}

void StoreJournal::finished(const LoopResult& result) {
  m_session.status = result.status;
  m_session.reason = m_redactor.redact(result.reason);
  m_session.answer = m_redactor.redact(result.answer);
  m_session.input_tokens = result.usage.input_tokens;
  m_session.output_tokens = result.usage.output_tokens;
  m_session.cost_usd = result.cost_usd;
  m_session.cost_known = result.cost_known;
  m_session.elapsed_ms = result.duration_ms;
  m_session.verified = result.verified;
  m_session.usage_estimated = result.usage.estimated;
  m_session.best_iteration = result.best_iteration;
  m_session.owner_pid = 0;
  m_session.owner_host.clear();
  m_session.updated_at = now();
  keep(m_store.update_session(m_session));
}

std::string resume_point_to_json(const ResumePoint& point) {
  const nlohmann::json out = {
      {"next_iteration", point.next_iteration},
      {"conversation", nlohmann::json::parse(messages_to_json(point.conversation))},
      {"feedback_given", point.feedback_given},
      {"runtime_summary", point.runtime_summary},
  };
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<ResumePoint> resume_point_from_json(std::string_view json) {
  TRY_ASSIGN(const nlohmann::json parsed, parse_json(json, "session resume point"));
  if (!parsed.is_object() || !parsed.contains("conversation")) {
    return fail(ErrorKind::parse, "session resume point: expected an object with a conversation");
  }
  ResumePoint point;
  point.next_iteration =
      int_member_or(parsed, "next_iteration", 1, 1, std::numeric_limits<int>::max());
  TRY_ASSIGN(point.conversation, messages_from_json(parsed["conversation"].dump(),
                                                    "session resume point conversation"));
  for (const nlohmann::json& item : array_member(parsed, "feedback_given")) {
    if (item.is_string()) {
      point.feedback_given.push_back(item.get<std::string>());
    }
  }
  point.runtime_summary = string_member(parsed, "runtime_summary");
  return point;
}

} // namespace ralph::loop
