#pragma once

#include "ralph/core/error.h"
#include "ralph/core/message.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/store/session_store.h"

#include <vector>

namespace ralph::loop {

// A stored session turned back into what OuterLoop::run needs to go on.
struct ResumedRun {
  LoopState state;
  std::vector<Message> conversation; // what the next attempt starts from
};

// What a session has spent so far, as its row counts it.
BudgetCounters spent_of(const store::SessionRow& session);

// Rebuilds the loop state from the record: the finished attempts with their verdicts, the
// feedback given, the counters (tokens and cost of every model call recorded, a killed attempt's
// included; the time of every earlier run). A session killed during an attempt resumes at the
// start of that attempt; one that ended resumes after its last attempt, with that attempt's
// feedback still to give.
Result<ResumedRun> resume_from_record(const store::SessionRecord& record);

} // namespace ralph::loop
