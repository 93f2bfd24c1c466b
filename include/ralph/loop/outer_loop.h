#pragma once

#include "ralph/agent/agent.h"
#include "ralph/core/clock.h"
#include "ralph/core/event.h"
#include "ralph/core/settings.h"
#include "ralph/core/status.h"
#include "ralph/loop/budget.h"
#include "ralph/loop/journal.h"
#include "ralph/verify/judge_context.h"
#include "ralph/verify/verifier.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ralph::loop {

// A verifier and what its `error` verdicts mean for an attempt.
struct VerifierEntry {
  std::unique_ptr<verify::Verifier> verifier;
  ErrorPolicy policy = ErrorPolicy::fail_closed;
};

// What a run works on and by which rules. The settings come as the configuration loaded them.
struct LoopOptions {
  std::string goal;
  std::filesystem::path workspace;
  LoopSettings loop;     // iterations, feedback mode, trigger, heartbeat, stalls
  BudgetSettings budget; // tokens, cost, time
  PriceTable prices;     // what each model's tokens cost
  // The completion marker, stripped from what the user sees (and the `marker` trigger's). When
  // `evidence.enabled` (verifier-first runs) the loop also marks the tool calls that changed the
  // workspace, for the evidence verifier, and reminds the agent of the marker in feedback.
  EvidenceSettings evidence;
  // The user's rules files as read before the first attempt (what the agent and the judge were
  // given). An attempt that changes one is reported with a warning event.
  std::vector<verify::JudgeRulesFile> rules;
  // Where verifiers keep whole outputs too large for the record (Attempt::output_dir): a folder
  // beside the session store for this session. Empty: only head and tail are kept.
  std::filesystem::path output_dir;
  // Set by library users whose answers may already have reached someone (streamed to a chat):
  // such an answer cannot be taken back, so it is not verified.
  std::function<bool()> already_delivered;
  // Asked once feedback for the next attempt is given (and recorded): true ends the run there as
  // `interrupted` ("paused after attempt N"), so a caller can hold a goal and resume it later
  // from the record, or go on with changed verifiers or budgets.
  std::function<bool()> hold;
};

// One attempt as it ended.
struct AttemptRecord {
  int iteration = 0;
  std::string answer; // visible: completion marker removed
  agent::AgentStop stop = agent::AgentStop::failed;
  int steps = 0;
  int tool_calls = 0;
  Usage usage; // the agent's model calls
  std::int64_t duration_ms = 0;
  bool verified = false;   // verifiers ran
  std::string skip_reason; // why they did not (pre-check or trigger)
  bool passed = false;     // every verdict passed (after error policies)
  std::vector<verify::Verdict> verdicts;
  std::string feedback; // what the agent was told after this attempt
};

struct LoopResult {
  Status status = Status::failed;
  std::string reason; // one line: why the loop ended
  // Every verifier passed the delivered answer. False when it was delivered with no verdict
  // (no verifier, trigger, verify_final off) or when a verifier's error was let through by
  // fail_open: such an error checked nothing.
  bool verified = false;
  std::string answer; // what is delivered: the last answer, plus a notice when a budget ran out
  std::string notice; // the notice alone (empty unless a budget ran out)
  std::vector<AttemptRecord> attempts;
  int best_iteration = 0; // passing, else the most verdicts passed (the later one on ties)
  Usage usage;            // every model call of the run, verifiers' included
  double cost_usd = 0;
  bool cost_known = true; // false when a model had no price
  std::int64_t duration_ms = 0;
  std::optional<Error> error; // for failed and interrupted
};

// Where a resumed session picks up: the attempts it finished, what the agent was told, and what it
// has spent. A fresh run starts from the default.
struct LoopState {
  int next_iteration = 1;
  std::vector<AttemptRecord> attempts; // finished, in order
  std::vector<std::string> feedback_given;
  std::string runtime_summary;
  BudgetCounters spent;
  // The last attempt ended the previous run, so it got no feedback: give it before going on
  // (the conversation then ends with that attempt's messages).
  bool feedback_pending = false;
};

// The outer loop: run an attempt, decide whether it is verifiable and whether to verify it,
// run every verifier (independent ones concurrently), and either finish or feed the failures
// back for another attempt, within the budgets. What the agent did reaches it as facts
// (agent::AttemptObserver); it shows them, its own steps and the agent's events on `events`,
// stamped with the iteration. Not thread-safe; verifiers run on helper threads while run() waits
// for them.
class OuterLoop {
public:
  // The loop reads time (attempt durations, the time budget) only from `clock`. `journal`, when
  // given, records every step. Both must outlive the loop.
  OuterLoop(agent::Agent& agent, std::vector<VerifierEntry> verifiers, LoopOptions options,
            Clock& clock, Journal* journal = nullptr);

  // `conversation` starts with the goal (and may hold earlier turns), or, when resuming, with
  // what attempt `resume.next_iteration` starts from; it ends holding what the agent last worked
  // from. A cancel of `cancel` ends the run as `interrupted`.
  LoopResult run(std::vector<Message>& conversation, const CancelToken& cancel, EventSink& events,
                 const LoopState& resume = {});

private:
  class Run; // the state of one run, in outer_loop.cpp

  agent::Agent& m_agent;
  std::vector<VerifierEntry> m_verifiers;
  LoopOptions m_options;
  Clock& m_clock;
  Journal* m_journal;
};

} // namespace ralph::loop
