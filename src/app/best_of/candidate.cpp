#include "app/best_of/candidate.h"

#include "app/best_of/attempt_workspaces.h"

#include "ralph/core/try.h"
#include "ralph/session/record.h"

#include <algorithm>

namespace ralph::app {
namespace {

namespace fs = std::filesystem;

// Passes an attempt's events on to the observer, tagged with its number.
class AttemptEvents final : public EventSink {
public:
  AttemptEvents(BestOfObserver& observer, int index) : m_observer(observer), m_index(index) {}
  void on_event(const Event& event) override { m_observer.on_event(m_index, event); }

private:
  BestOfObserver& m_observer;
  int m_index;
};

// How many verdicts of the last verified attempt passed, of how many, and the tests they counted.
struct LastVerdicts {
  int passing = 0;
  int total = 0;
  std::optional<int> tests_passed = 0; // none when a verdict's runner did not say
};

LastVerdicts last_verdicts(const session::SessionReport& report) {
  LastVerdicts out;
  int last = 0;
  for (const auto& [iteration, verdict] : report.verdicts) {
    last = std::max(last, iteration);
  }
  for (const auto& [iteration, verdict] : report.verdicts) {
    if (iteration != last) {
      continue;
    }
    ++out.total;
    out.passing += verdict.result == Outcome::pass ? 1 : 0;
    if (verdict.tests) {
      out.tests_passed = out.tests_passed && verdict.tests->passed
                             ? std::optional<int>(*out.tests_passed + *verdict.tests->passed)
                             : std::nullopt;
    }
  }
  return out;
}

} // namespace

void run_candidate(engine::Io& io, session::Runtime& runtime, const session::SessionRequest& goal,
                   const Attempts& attempts, Candidate& candidate, BestOfObserver& observer,
                   const CancelToken& cancel) {
  session::Outputs outputs = goal.outputs;
  if (!outputs.trace_dir.empty()) {
    outputs.trace_dir /= std::to_string(candidate.index);
  }
  outputs.append_events = true; // one file for all attempts, each line with its session
  auto run = [&]() -> Result<void> {
    // Every attempt is recorded in the source workspace's store, over a connection of its own.
    TRY_ASSIGN(std::unique_ptr<store::SessionStore> store,
               session::open_store(goal.config, goal.workspace));
    session::SessionRequest request{.goal = goal.goal,
                                    .workspace = candidate.workspace.path,
                                    .config = goal.config,
                                    .outputs = std::move(outputs),
                                    .parent_id = attempts.session_id};
    TRY_ASSIGN(auto session, session::Session::prepare(runtime, std::move(request),
                                                       {.io = &io, .store = store.get()}, cancel));
    AttemptEvents events(observer, candidate.index);
    TRY_ASSIGN(session::SessionReport report, session->run(events));
    if (report.record_failure) {
      candidate.error = *report.record_failure;
    }
    candidate.report = std::move(report);
    return {};
  };
  if (auto ran = run(); !ran) {
    candidate.error = ran.error();
  }
  if (auto measured = measure(io.runner(), attempts, candidate); !measured) {
    candidate.error = measured.error();
  }
}

CandidateScore score_of(const Candidate& candidate) {
  CandidateScore score{.index = candidate.index};
  if (!candidate.report) {
    return score;
  }
  const session::SessionReport& report = *candidate.report;
  const LastVerdicts last = last_verdicts(report);
  score.passed = report.status == Status::completed && report.verified;
  score.passing_verdicts = last.passing;
  score.tests_passed = last.tests_passed;
  if (candidate.changes) {
    score.changed_lines = candidate.changes->changed_lines();
  }
  score.cost_usd = report.cost_usd;
  score.tokens = report.usage.input_tokens + report.usage.output_tokens;
  return score;
}

CandidateReport report_of(const Candidate& candidate) {
  CandidateReport out{.index = candidate.index,
                      .workspace = candidate.workspace.path.string(),
                      .branch = candidate.workspace.branch,
                      .diff = candidate.diff_file.string()};
  if (candidate.report) {
    const session::SessionReport& report = *candidate.report;
    const LastVerdicts last = last_verdicts(report);
    out.session_id = report.session_id;
    out.status = report.status;
    out.verified = report.verified;
    out.passing_verdicts = last.passing;
    out.verdicts = last.total;
    out.cost_usd = report.cost_usd;
    out.usage = report.usage;
    out.reason = report.reason;
  }
  if (candidate.changes) {
    out.changed_lines = candidate.changes->changed_lines();
    out.added = candidate.changes->added;
    out.removed = candidate.changes->removed;
  }
  if (candidate.error) {
    out.error = candidate.error->message;
  }
  return out;
}

} // namespace ralph::app
