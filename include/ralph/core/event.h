#pragma once

#include "ralph/core/error.h"
#include "ralph/core/message.h"
#include "ralph/core/outcome.h"
#include "ralph/core/settings.h"
#include "ralph/core/status.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <variant>

namespace ralph {

// What a run shows the world as it happens: the terminal, the --events file, later the server.
// Output only: nothing that steers the run reads it (the loop learns what an attempt did through
// agent::AttemptObserver). Each kind of event has its own payload below, every field meaning one
// thing; `k_name` is its stable name in the --events file, whose JSON form (event_json.h) has one
// key per field. Durations are milliseconds there (`duration_ms`, `delay_ms`).
namespace event {

// Attempt Event::iteration begins.
struct AttemptStarted {
  static constexpr const char* k_name = "attempt_started";
  int max_iterations = 0;
};

// Model call Event::step of the attempt begins.
struct ModelStarted {
  static constexpr const char* k_name = "model_started";
  std::string agent; // an external agent CLI that works on the attempt ("claude"); empty: a model
};

// A piece of the model's answer, as it streams.
struct TextDelta {
  static constexpr const char* k_name = "text_delta";
  std::string text;
};

// A piece of the model's reasoning, as it streams.
struct ThinkingDelta {
  static constexpr const char* k_name = "thinking_delta";
  std::string text;
};

// A model call returned.
struct ModelFinished {
  static constexpr const char* k_name = "model_finished";
  std::string model;       // "provider/model" the tokens were spent on
  std::string stop_reason; // end_turn, tool_use, max_tokens, ...; "sub_queries" for llm_query calls
  Usage usage;
  int requests = 1; // model requests reported together (sub-queries come in batches)
};

// The model asked for a tool call, which runs now.
struct ToolStarted {
  static constexpr const char* k_name = "tool_started";
  ToolCall call;
};

// A tool call finished; `result` is what the model is given back.
struct ToolFinished {
  static constexpr const char* k_name = "tool_finished";
  ToolCall call;
  std::string result;
  bool is_error = false;
  std::optional<int> exit_code; // the structured exit code of process-backed tools
  std::chrono::milliseconds duration{0};
};

// A running tool call reported how far it got (an MCP server's progress notification).
struct ToolProgress {
  static constexpr const char* k_name = "tool_progress";
  std::string call_id;
  std::string tool;
  double progress = 0;
  std::optional<double> total; // unknown when the server does not say
  std::string message;
};

// A model request failed with a transient fault; try `attempt` failed and the next is sent after
// `delay`. Text streamed since the previous try is void.
struct Retry {
  static constexpr const char* k_name = "retry";
  std::string reason;
  int attempt = 0;
  std::chrono::milliseconds delay{0};
};

struct Warning {
  static constexpr const char* k_name = "warning";
  std::string text;
};

// The agent CLI stopped because its plan's usage limit is reached; the run waits until the limit
// resets (within the time budget) and then goes on with the same attempt.
struct AgentLimitWait {
  static constexpr const char* k_name = "agent_limit_wait";
  std::string agent;   // the CLI as people call it: "Claude Code", "Codex"
  std::string message; // the CLI's own words
  std::chrono::system_clock::time_point resets_at;
  std::chrono::milliseconds wait{0};
};

// A failure that ends the work it happened in (a model call that failed after its retries).
struct Failure {
  static constexpr const char* k_name = "error";
  ErrorKind kind = ErrorKind::internal;
  std::string message;
};

// The agent finished the work of an attempt.
struct AgentFinished {
  static constexpr const char* k_name = "agent_finished";
  std::string answer;
  std::string stop; // answered, max_steps, cancelled, failed
  int steps = 0;
  Usage usage;
  std::string agent_session; // an external agent CLI's own session id, for resuming it by hand
};

// Attempt Event::iteration ended; `answer` as the user sees it (completion marker removed).
struct AttemptFinished {
  static constexpr const char* k_name = "attempt_finished";
  std::string answer;
  std::string stop; // why the agent stopped
  std::chrono::milliseconds duration{0};
  Usage usage;
};

// The attempt's answer is not verified (a pre-check or the trigger), and why.
struct VerificationSkipped {
  static constexpr const char* k_name = "verification_skipped";
  std::string reason;
};

struct VerifierStarted {
  static constexpr const char* k_name = "verifier_started";
  std::string verifier;
};

// What the test runners behind a verdict counted (verify::TestSummary), and the same verifier's
// failing count in the previous attempt that had one: "failing: 3 → 2". Counts the runner's
// output did not give are nullopt.
struct TestCounts {
  std::string runner;
  int failed = 0;
  std::optional<int> passed;
  std::optional<int> total;
  std::optional<int> failed_before;
};

// One verifier's verdict on the attempt.
struct VerdictGiven {
  static constexpr const char* k_name = "verdict";
  std::string verifier;
  Outcome result = Outcome::error;
  std::string category; // empty on pass
  std::string feedback;
  std::optional<ErrorPolicy> policy; // for `error`: the policy the loop applied
  std::optional<int> exit_code;      // of the command it ran, if any
  std::chrono::milliseconds duration{0};
  Usage usage;                     // the verifier's own model calls (a judge's)
  std::optional<TestCounts> tests; // when its output or feedback had a test runner's summary
};

// What the agent is told before its next attempt.
struct FeedbackGiven {
  static constexpr const char* k_name = "feedback";
  FeedbackMode mode = FeedbackMode::append;
  std::string text;
};

// A budget is nearly spent: a token, cost or time budget at 80%, or the last of several
// attempts starting.
struct BudgetWarning {
  static constexpr const char* k_name = "budget_warning";
  BudgetKind budget = BudgetKind::tokens;
  int percent = 0;
  double used = 0;  // attempts finished, tokens, US dollars, seconds or sub-queries
  double limit = 0; // in the same unit
};

// `used` of `limit` as the whole percent a budget_warning carries (at most 100; 0 without limit).
inline int budget_percent(double used, double limit) {
  return limit > 0 ? static_cast<int>(std::lround(std::min(used / limit, 1.0) * 100)) : 0;
}

// The run ended.
struct RunEnded {
  static constexpr const char* k_name = "status";
  Status status = Status::failed;
  std::string reason;
  bool verified = false; // every verifier passed the delivered answer (see LoopResult)
  int attempts = 0;
  Usage usage;
  std::chrono::milliseconds duration{0};
};

// The attempts of a best-of-N run were ranked: which one won and why (`ralph run
// --parallel-attempts N`; the best-of-N session's, after its attempts' own events).
struct AttemptsRanked {
  static constexpr const char* k_name = "attempts_ranked";
  int winner = 0;             // the attempt applied or to be applied, from 1; 0: none passed
  std::string winner_session; // its session; empty without a winner
  int best = 0;               // first in the ranking, winner or not
  std::string why;            // "fewer changed lines: 2 vs 3", "none passed; ranked first by ..."
  bool applied = false;       // the winner's changes are in the workspace now
};

} // namespace event

using EventPayload =
    std::variant<event::AttemptStarted, event::ModelStarted, event::TextDelta, event::ThinkingDelta,
                 event::ModelFinished, event::ToolStarted, event::ToolProgress, event::ToolFinished,
                 event::Retry, event::Warning, event::AgentLimitWait, event::Failure,
                 event::AgentFinished, event::AttemptFinished, event::VerificationSkipped,
                 event::VerifierStarted, event::VerdictGiven, event::FeedbackGiven,
                 event::BudgetWarning, event::RunEnded, event::AttemptsRanked>;

struct Event {
  int iteration = 0; // outer-loop attempt, 1-based; 0 outside the loop
  int step = 0;      // model call of the attempt, 1-based; 0 when not about one
  EventPayload payload;

  // The payload's stable name ("tool_started", ...).
  const char* name() const {
    return std::visit([](const auto& p) { return std::decay_t<decltype(p)>::k_name; }, payload);
  }
  // The payload when it is a `T`, else null.
  template <typename T> const T* get() const { return std::get_if<T>(&payload); }
};

// Receives events. Implementations document their own thread-safety; the agent and the loop
// emit from the thread that runs them.
class EventSink {
public:
  virtual ~EventSink() = default;
  virtual void on_event(const Event& event) = 0;
};

// Drops every event.
class NullEventSink final : public EventSink {
public:
  void on_event(const Event&) override {}
};

} // namespace ralph
