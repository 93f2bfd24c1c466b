#pragma once

#include "ralph/core/event.h"
#include "ralph/core/redactor.h"
#include "ralph/loop/journal.h"
#include "ralph/store/session_store.h"
#include "ralph/store/trace_writer.h"

#include <optional>
#include <vector>

namespace ralph::loop {

// Records a run in a SessionStore (every step in its own transaction) and, when given, writes
// the trace files after each attempt. Everything is redacted before it is written. Trace-file
// problems are warnings on `warnings` (the record in the store is what resume relies on); a store
// write that fails is the journal's failure. `store`, `traces` and `warnings` must outlive it.
class StoreJournal final : public Journal {
public:
  // `session` is the row as created (with its resume point); the journal keeps it current.
  StoreJournal(store::SessionStore& store, store::SessionRow session, Redactor redactor,
               store::TraceWriter* traces, EventSink& warnings);

  void attempt_started(int iteration, std::span<const Message> conversation) override;
  void model_call(int iteration, const agent::ModelCall& call,
                  const BudgetCounters& counters) override;
  void tool_call(int iteration, int seq, const verify::ToolRecord& record,
                 std::string_view result) override;
  void attempt_finished(const AttemptRecord& attempt, std::span<const Message> added,
                        const BudgetCounters& counters, int best_iteration,
                        const std::optional<ResumePoint>& next) override;
  void resumed(const ResumePoint& next) override;
  void finished(const LoopResult& result) override;
  std::optional<Error> failure() const override { return m_failure; }

  const store::SessionRow& session() const { return m_session; }

private:
  void keep(Result<void> written);
  void count(const BudgetCounters& counters);
  std::string redact_messages(std::span<const Message> messages) const;

  store::SessionStore& m_store;
  store::SessionRow m_session;
  Redactor m_redactor;
  store::TraceWriter* m_traces;
  EventSink& m_warnings;
  std::optional<Error> m_failure;
  store::AttemptRow m_attempt;
  std::vector<store::ToolCallRow> m_tools; // this attempt's, for its trace
};

// The resume point as stored in SessionRow::resume_json, and back.
std::string resume_point_to_json(const ResumePoint& point);
Result<ResumePoint> resume_point_from_json(std::string_view json);

} // namespace ralph::loop
