#pragma once

#include "ralph/agent/attempt_observer.h"
#include "ralph/core/error.h"
#include "ralph/core/message.h"
#include "ralph/loop/budget.h"
#include "ralph/verify/attempt.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ralph::loop {

struct AttemptRecord;
struct LoopResult;

// Where the next attempt starts: enough to resume after a crash at any point before it ends.
struct ResumePoint {
  int next_iteration = 1;
  std::vector<Message> conversation;
  std::vector<std::string> feedback_given;
  std::string runtime_summary;
};

// The durable record of a run, written as it happens: each call returns only once what it
// records would survive a crash or kill -9 of the process (a power cut: see
// store::SessionStore). Called from the loop's thread. A write that fails is kept in
// `failure()`; the loop then stops the run as `failed` rather than go on unrecorded.
class Journal {
public:
  virtual ~Journal() = default;
  // Attempt `iteration` is about to run from `conversation`.
  virtual void attempt_started(int iteration, std::span<const Message> conversation) = 0;
  // One model call of the agent, with the counters after it.
  virtual void model_call(int iteration, const agent::ModelCall& call,
                          const BudgetCounters& counters) = 0;
  // One tool call (its record and its result text), `seq` counting from 1 in the attempt.
  virtual void tool_call(int iteration, int seq, const verify::ToolRecord& record,
                         std::string_view result) = 0;
  // The attempt ended: its record (verdicts and feedback included), the messages it added, the
  // counters, and where the next attempt starts (none when the run ends here).
  virtual void attempt_finished(const AttemptRecord& attempt, std::span<const Message> added,
                                const BudgetCounters& counters, int best_iteration,
                                const std::optional<ResumePoint>& next) = 0;
  // A resumed run gave the feedback its previous run ended without: the next attempt starts here.
  virtual void resumed(const ResumePoint& next) = 0;
  // The run ended.
  virtual void finished(const LoopResult& result) = 0;
  virtual std::optional<Error> failure() const = 0;
};

} // namespace ralph::loop
