#include "ralph/app/best_of/best_of.h"

#include "app/best_of/attempt_workspaces.h"
#include "app/best_of/best_of_record.h"
#include "app/best_of/candidate.h"
#include "app/best_of/candidate_ranking.h"

#include "ralph/core/ids.h"
#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/engine/engine.h"
#include "ralph/session/notifications.h"
#include "ralph/session/record.h"
#include "ralph/store/event_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

namespace ralph::app {
namespace {

namespace fs = std::filesystem;

// A request that cannot run, and a configuration that cannot make the agent or its verifiers (an
// unknown agent CLI, a judge without a model, a cost budget without prices): said once, before
// any folder, worktree or record is made.
Result<void> check(session::Runtime& runtime, const BestOfRequest& request,
                   const CancelToken& cancel) {
  if (request.attempts < 1) {
    return fail(ErrorKind::usage,
                fmt::format("best of {}: at least one attempt is needed", request.attempts));
  }
  if (request.session.resume) {
    return fail(ErrorKind::usage, "best of N starts new sessions: resume one of its attempts");
  }
  session::SessionRequest probe{.goal = request.session.goal,
                                .workspace = request.session.workspace,
                                .config = request.session.config};
  probe.config.store.enabled = false;
  TRY(session::Session::prepare(runtime, std::move(probe), {}, cancel));
  return {};
}

// The folder the attempts go in.
Result<void> make_attempts_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return fail(ErrorKind::io, fmt::format("{}: cannot create: {}", dir.string(), ec.message()));
  }
  // Worktrees and copies are work in progress, never part of the source's own changes.
  if (const fs::path ignore = dir.parent_path() / ".gitignore"; !fs::exists(ignore, ec)) {
    std::ofstream(ignore) << "# Written by ralph: best-of-N attempts.\n*\n";
  }
  return {};
}

std::string commit_message(const std::string& goal, const Attempts& attempts,
                           const Candidate& winner, std::size_t n, const std::string& why) {
  return fmt::format("{}\n\nralph: best of {} attempts (session {}): attempt {} (session {}) "
                     "applied, {}.\n",
                     first_line(goal, 72), n, attempts.session_id, winner.index,
                     winner.report->session_id, why);
}

// The attempts ranked, and the winner applied unless `cancel` fired.
BestOfReport rank_and_apply(tools::ProcessRunner& runner, const session::SessionRequest& goal,
                            const Attempts& attempts, const std::vector<Candidate>& candidates,
                            const Redactor& redactor, const CancelToken& cancel) {
  std::vector<CandidateScore> scores;
  BestOfReport report{.session_id = attempts.session_id,
                      .workspace = goal.workspace.string(),
                      .attempts_dir = attempts.dir.string()};
  for (const Candidate& candidate : candidates) {
    scores.push_back(score_of(candidate));
    report.candidates.push_back(report_of(candidate));
  }
  const Ranking ranking = rank_candidates(scores);
  report.order = ranking.order;
  report.best = ranking.order.front();
  report.why = ranking.reason;
  const Candidate& best = candidates[static_cast<std::size_t>(report.best - 1)];
  report.status = best.report ? best.report->status : Status::failed;
  if (cancel.cancelled()) {
    report.status = Status::interrupted;
    report.why = "interrupted; nothing applied";
    return report;
  }
  if (!ranking.winner) {
    return report;
  }
  const Candidate& winner = candidates[static_cast<std::size_t>(*ranking.winner - 1)];
  report.winner = winner.index;
  report.answer = winner.report->answer;
  report.unchanged = winner.changes->files.empty();
  const auto applied =
      apply_winner(runner, goal.workspace, attempts, winner,
                   commit_message(goal.goal, attempts, winner, candidates.size(), ranking.reason));
  if (applied) {
    report.applied = true;
    report.commit = *applied;
  } else {
    report.apply_error = redactor.redact(applied.error().message);
    report.status = Status::failed;
  }
  return report;
}

// The ranking as the last line of the events file, under the best-of-N session: which attempt
// won and why, for whoever follows the file rather than the report.
void write_ranking(const session::Outputs& outputs, const BestOfReport& report,
                   const Redactor& redactor) {
  if (outputs.events_file.empty()) {
    return;
  }
  auto log = store::EventLog::open(outputs.events_file, report.session_id, redactor, true);
  if (!log) {
    return; // the attempts' own logs of this file said what is wrong with it
  }
  event::AttemptsRanked ranked{.winner = report.winner.value_or(0),
                               .best = report.best,
                               .why = report.why,
                               .applied = report.applied};
  for (const CandidateReport& candidate : report.candidates) {
    if (candidate.index == ranked.winner) {
      ranked.winner_session = candidate.session_id;
    }
  }
  (*log)->on_event(Event{.payload = std::move(ranked)});
}

// The best-of-N session's end as a run's end: one notification for the run the person started,
// none for its attempts (sessions under it).
session::SessionReport notified_end(const store::SessionRow& row) {
  return session::SessionReport{
      .session_id = row.id,
      .status = row.status,
      .reason = row.reason,
      .verified = row.verified,
      .iterations = row.iterations,
      .usage = {.input_tokens = row.input_tokens, .output_tokens = row.output_tokens},
      .cost_usd = row.cost_known ? std::optional(row.cost_usd) : std::nullopt,
      .duration_ms = row.elapsed_ms};
}

} // namespace

Result<BestOfReport> run_best_of(session::Runtime& runtime, const BestOfRequest& request,
                                 BestOfObserver& observer, Clock& clock,
                                 const CancelToken& cancel) {
  const session::SessionRequest& goal = request.session;
  const fs::path& source = goal.workspace;
  TRY(check(runtime, request, cancel));
  TRY(session::check_notify_targets(goal.config.notify, runtime.environment()));
  TRY_ASSIGN(std::unique_ptr<store::SessionStore> store, session::open_store(goal.config, source));
  if (!goal.outputs.events_file.empty() && !goal.outputs.append_events) {
    std::ofstream truncate(goal.outputs.events_file, std::ios::trunc); // the attempts append
  }
  const Clock::time_point started = clock.now();
  tools::PosixProcessRunner runner;
  Attempts attempts{.session_id = goal.session_id.empty() ? new_session_id() : goal.session_id};
  attempts.dir = source / ".ralph" / "attempts" / attempts.session_id;
  TRY(make_attempts_dir(attempts.dir));
  attempts.git = tools::in_git_repository(runner, source, cancel);
  std::vector<Candidate> candidates(static_cast<std::size_t>(request.attempts));
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    candidates[k].index = static_cast<int>(k) + 1;
  }
  observer.on_start({.session_id = attempts.session_id,
                     .workspace = source,
                     .attempts_dir = attempts.dir,
                     .attempts = request.attempts});
  if (auto made = make_workspaces(runner, source, attempts, candidates, cancel); !made) {
    if (!cancel.cancelled()) {
      return fail(made.error());
    }
    observer.on_interrupted_making_workspaces(attempts.dir);
    return BestOfReport{.session_id = attempts.session_id,
                        .ran = false,
                        .status = Status::interrupted,
                        .workspace = source.string(),
                        .attempts_dir = attempts.dir.string()};
  }
  const Redactor& redactor = runtime.redactor();
  store::SessionRow row = parent_row(attempts.session_id, goal, redactor, clock.wall_now());
  if (store) {
    TRY(store->create_session(row));
  }

  {
    engine::Engine engine;
    for (Candidate& candidate : candidates) {
      engine.spawn([&](engine::Io& io) {
        run_candidate(io, runtime, goal, attempts, candidate, observer, cancel);
      });
    }
    engine.wait();
  }

  // Every attempt failed to start the same way (a configuration error): that error, once.
  if (std::all_of(candidates.begin(), candidates.end(),
                  [](const Candidate& c) { return !c.report && c.error; })) {
    fail_row(row, *candidates.front().error);
    if (store) {
      (void)store->update_session(row);
    }
    return fail(*candidates.front().error);
  }

  BestOfReport report = rank_and_apply(runner, goal, attempts, candidates, redactor, cancel);
  write_ranking(goal.outputs, report, redactor);
  finish_row(row, report, candidates, redactor,
             std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - started),
             clock.wall_now());
  if (store) {
    if (auto updated = store->update_session(row); !updated) {
      report.record_failure = updated.error();
      report.record_failure->message = redactor.redact(updated.error().message);
    }
  }
  session::SessionNotifier(runtime, goal.config, report.session_id, goal.goal, source, {})
      .ended(notified_end(row));
  return report;
}

} // namespace ralph::app
