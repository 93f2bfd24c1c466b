#pragma once

// A stub agent and stub verifiers for outer-loop tests: every attempt and verdict is scripted,
// and what the loop handed them is recorded.

#include "support/fake_clock.h"
#include "support/recording_sink.h"

#include "ralph/agent/agent.h"
#include "ralph/loop/journal.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/verify/verifier.h"

#include <condition_variable>
#include <deque>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace ralph::loop::testing {

// One scripted attempt.
struct StubAttempt {
  std::string answer;
  agent::AgentStop stop = agent::AgentStop::answered;
  Usage usage_per_step{.input_tokens = 10, .output_tokens = 5};
  int steps = 1;
  // Tool calls reported to the observer: {name, arguments, exit code}; `effect` runs before the
  // call with the same index is reported, as the tool itself would.
  struct Call {
    std::string name;
    std::string arguments;
    std::optional<int> exit_code;
    std::function<void()> effect;
    bool wrote_files = false;
    // A real tool's call: its result is reported instead of a made-up one.
    std::function<tools::ToolResult()> tool;
  };
  std::vector<Call> calls;
  // Time the attempt takes on the test's clock before it answers; it stops early, cancelled,
  // when its token's deadline passes meanwhile.
  std::chrono::milliseconds takes{0};
  bool wait_for_cancel = false; // block until the attempt is cancelled (by another thread)
  // The agent stops here, its plan's usage limit reached (an agent CLI's report).
  std::optional<agent::UsageLimit> usage_limit;
};

// What a real test runner printed (tests/verify/fixtures/test_runners).
inline std::string runner_output(const std::string& name) {
  std::ifstream in(std::string(RALPH_SOURCE_DIR) + "/tests/verify/fixtures/test_runners/" + name,
                   std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// An attempt that answers `text` in one step.
inline StubAttempt answer(std::string text) {
  StubAttempt attempt;
  attempt.answer = std::move(text);
  return attempt;
}

class StubAgent final : public agent::Agent {
public:
  // `clock` is advanced by each attempt's `takes`; null: attempts take no time.
  explicit StubAgent(ralph::testing::FakeClock* clock = nullptr) : m_clock(clock) {}

  void push(StubAttempt attempt) { m_script.push_back(std::move(attempt)); }

  agent::AgentOutcome run(std::vector<Message>& conversation, const CancelToken& cancel,
                          agent::AttemptObserver& observer, EventSink& events) override {
    seen.push_back(conversation);
    agent::AgentOutcome outcome;
    if (m_script.empty()) {
      outcome.stop = agent::AgentStop::failed;
      outcome.error = Error{ErrorKind::internal, "stub agent: no attempt scripted"};
      return outcome;
    }
    StubAttempt attempt = std::move(m_script.front());
    m_script.pop_front();
    for (std::size_t i = 0; i < attempt.calls.size(); ++i) {
      const auto& stub = attempt.calls[i];
      const ToolCall call{"call_" + std::to_string(i), stub.name, stub.arguments};
      events.on_event(Event{.step = 1, .payload = event::ToolStarted{.call = call}});
      if (stub.effect) {
        stub.effect();
      }
      observer.tool_call_finished(1, call,
                                  stub.tool ? stub.tool()
                                            : tools::ToolResult{.content = "ran " + stub.name,
                                                                .exit_code = stub.exit_code,
                                                                .wrote_files = stub.wrote_files});
      ++outcome.tool_calls;
    }
    for (int step = 1; step <= attempt.steps; ++step) {
      if (cancel.cancelled()) {
        outcome.stop = agent::AgentStop::cancelled;
        return outcome;
      }
      observer.model_call_finished(agent::ModelCall{.step = step,
                                                    .model = "stub/agent",
                                                    .usage = attempt.usage_per_step,
                                                    .stop_reason = llm::StopReason::end_turn});
      outcome.usage += attempt.usage_per_step;
      outcome.steps = step;
    }
    if (m_clock != nullptr && attempt.takes.count() > 0) {
      m_clock->advance(attempt.takes);
    }
    while (attempt.wait_for_cancel && !cancel.cancelled()) {
      std::this_thread::yield();
    }
    if (cancel.cancelled()) {
      outcome.stop = agent::AgentStop::cancelled;
      return outcome;
    }
    if (attempt.usage_limit) {
      outcome.stop = agent::AgentStop::failed;
      outcome.error = Error{.kind = ErrorKind::provider, .message = attempt.usage_limit->message};
      outcome.usage_limit = attempt.usage_limit;
      conversation.push_back(Message{.role = Role::assistant, .content = attempt.answer});
      return outcome;
    }
    outcome.stop = attempt.stop;
    outcome.answer = attempt.answer;
    conversation.push_back(Message{.role = Role::assistant, .content = attempt.answer});
    return outcome;
  }

  std::vector<std::vector<Message>> seen; // the conversation at the start of each attempt

private:
  ralph::testing::FakeClock* m_clock;
  std::deque<StubAttempt> m_script;
};

// Returns scripted verdicts in order (the last one repeats) and records the attempts it saw.
class StubVerifier final : public verify::Verifier {
public:
  explicit StubVerifier(std::string name) : m_name(std::move(name)) {}

  StubVerifier& then(verify::Outcome result, std::string category = "", std::string feedback = "",
                     std::string excerpt = "") {
    verify::Verdict verdict;
    verdict.result = result;
    verdict.category = verify::Category::named(category);
    verdict.feedback = std::move(feedback);
    if (!excerpt.empty()) {
      verify::CommandEvidence evidence;
      evidence.command = "make check";
      evidence.exit_code = 2;
      evidence.excerpt = std::move(excerpt);
      verdict.evidence = evidence;
    }
    m_verdicts.push_back(std::move(verdict));
    return *this;
  }
  StubVerifier& of_kind(verify::VerifierKind kind) {
    m_kind = kind;
    return *this;
  }
  StubVerifier& using_tokens(const std::string& model, Usage usage) {
    m_model = model;
    m_usage = usage;
    return *this;
  }

  std::string name() const override { return m_name; }
  verify::VerifierKind kind() const override { return m_kind; }
  verify::Verdict verify(const verify::Attempt& attempt, const CancelToken&) override {
    std::lock_guard lock(m_mutex);
    attempts.push_back(
        {attempt.answer, attempt.previous_feedback, attempt.tools, attempt.iteration});
    verify::Verdict verdict = m_verdicts.empty() ? verify::Verdict{} : m_verdicts.front();
    if (m_verdicts.size() > 1) {
      m_verdicts.pop_front();
    }
    verdict.model = m_model;
    verdict.usage = m_usage;
    return verdict;
  }

  struct Seen {
    std::string answer;
    std::vector<std::string> previous_feedback;
    std::vector<verify::ToolRecord> tools;
    int iteration = 0;
  };
  std::vector<Seen> attempts;

private:
  std::string m_name;
  verify::VerifierKind m_kind = verify::VerifierKind::custom;
  std::deque<verify::Verdict> m_verdicts;
  std::string m_model;
  Usage m_usage;
  std::mutex m_mutex;
};

// Records what the loop journals; can be told to fail from the nth write on.
class FakeJournal final : public Journal {
public:
  void attempt_started(int iteration, std::span<const Message> conversation) override {
    log.push_back("started " + std::to_string(iteration));
    starts.emplace_back(conversation.begin(), conversation.end());
    count_write();
  }
  void model_call(int iteration, const agent::ModelCall&, const BudgetCounters& counters) override {
    log.push_back("model " + std::to_string(iteration));
    last_counters = counters;
    count_write();
  }
  void tool_call(int iteration, int seq, const verify::ToolRecord& record,
                 std::string_view result) override {
    log.push_back("tool " + std::to_string(iteration) + "." + std::to_string(seq) + " " +
                  record.name + " " + std::string(result));
    count_write();
  }
  void attempt_finished(const AttemptRecord& attempt, std::span<const Message> added,
                        const BudgetCounters& counters, int best_iteration,
                        const std::optional<ResumePoint>& next) override {
    log.push_back("finished " + std::to_string(attempt.iteration) + (next ? " next" : " last"));
    added_messages.emplace_back(added.begin(), added.end());
    last_counters = counters;
    best = best_iteration;
    resume_points.push_back(next);
    count_write();
  }
  void resumed(const ResumePoint& next) override {
    log.push_back("resumed " + std::to_string(next.next_iteration));
    resume_points.push_back(next);
  }
  void finished(const LoopResult& result) override {
    log.push_back(std::string("end ") + to_string(result.status));
  }
  std::optional<Error> failure() const override { return m_failure; }

  int fail_from_write = 0; // 0: never
  std::vector<std::string> log;
  std::vector<std::vector<Message>> starts;
  std::vector<std::vector<Message>> added_messages;
  std::vector<std::optional<ResumePoint>> resume_points;
  BudgetCounters last_counters;
  int best = 0;

private:
  void count_write() {
    if (fail_from_write > 0 && ++m_writes >= fail_from_write && !m_failure) {
      m_failure = Error{ErrorKind::store, "disk full"};
    }
  }
  int m_writes = 0;
  std::optional<Error> m_failure;
};

} // namespace ralph::loop::testing
