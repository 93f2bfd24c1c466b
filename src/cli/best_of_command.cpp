#include "cli/best_of_command.h"

#include "cli/best_of_report.h"
#include "cli/candidate_ranking.h"
#include "cli/interrupt.h"
#include "cli/requests.h"
#include "cli/run_report.h"

#include "ralph/core/ids.h"
#include "ralph/core/text.h"
#include "ralph/core/time.h"
#include "ralph/core/try.h"
#include "ralph/engine/engine.h"
#include "ralph/session/agents.h"
#include "ralph/session/record.h"
#include "ralph/session/session.h"
#include "ralph/session/settings.h"
#include "ralph/tools/isolated_workspace.h"
#include "ralph/tools/workspace_changes.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>

namespace ralph::cli {
namespace {

namespace fs = std::filesystem;

// Where the attempts of one best-of-N session live and what they all start from.
struct Attempts {
  std::string session_id;
  fs::path dir;      // .ralph/attempts/<session>
  bool git = false;  // worktrees (else copies)
  std::string start; // git: the commit every attempt starts from (the source as it was)
  fs::path base;     // copies: an untouched copy every attempt starts from
};

struct Candidate {
  int index = 0;
  tools::IsolatedWorkspace workspace;
  std::optional<SessionReport> report;
  std::optional<Error> error; // what kept it from running, or from being measured
  std::string end_commit;     // git: its work, committed on its branch
  std::optional<tools::WorkspaceChanges> changes;
  fs::path diff_file;
};

// Shows each attempt's progress on stderr as lines tagged with its number: its attempts,
// verdicts and end. Called from every attempt's thread; each line is one write.
class CandidateProgress final : public EventSink {
public:
  CandidateProgress(int index, bool quiet) : m_index(index), m_quiet(quiet) {}
  void on_event(const Event& event) override {
    if (m_quiet) {
      return;
    }
    std::string line;
    if (event.get<event::AttemptStarted>() != nullptr) {
      line = fmt::format("attempt {} started", event.iteration);
    } else if (const auto* verdict = event.get<event::VerdictGiven>()) {
      line = fmt::format("verdict of {}: {}{}", verdict->verifier, to_string(verdict->result),
                         verdict->category.empty() ? "" : " [" + verdict->category + "]");
    } else if (const auto* failure = event.get<event::Failure>()) {
      line = "error: " + first_line(failure->message, 300);
    } else if (const auto* ended = event.get<event::RunEnded>()) {
      line = fmt::format("{}{}", to_string(ended->status),
                         ended->reason.empty() ? "" : " · " + first_line(ended->reason, 200));
    } else {
      return;
    }
    const std::string text = fmt::format("[{}] {}\n", m_index, line);
    std::fwrite(text.data(), 1, text.size(), stderr);
  }

private:
  int m_index;
  bool m_quiet;
};

// Makes every attempt's workspace: in git, the first a worktree of the source as it is (its
// uncommitted and untracked files committed as its start), the others worktrees of that start;
// outside git, a copy of the source kept untouched as the base, and a copy of it per attempt.
Result<void> make_workspaces(tools::ProcessRunner& runner, const fs::path& source,
                             Attempts& attempts, std::vector<Candidate>& candidates,
                             const CancelToken& cancel) {
  if (!attempts.git) {
    TRY_ASSIGN(const tools::IsolatedWorkspace base,
               tools::make_isolated_workspace(
                   runner, {.source = source, .path = attempts.dir / "base"}, cancel));
    attempts.base = base.path;
  }
  for (Candidate& candidate : candidates) {
    const std::string k = std::to_string(candidate.index);
    tools::IsolationRequest request{.source = attempts.git ? source : attempts.base,
                                    .path = attempts.dir / k,
                                    .branch =
                                        fmt::format("ralph/attempts/{}/{}", attempts.session_id, k),
                                    .ref = attempts.start};
    TRY_ASSIGN(candidate.workspace, tools::make_isolated_workspace(runner, request, cancel));
    if (attempts.git && attempts.start.empty()) {
      TRY_ASSIGN(attempts.start,
                 tools::commit_worktree(
                     runner, candidate.workspace,
                     fmt::format("ralph: start of best-of-N session {}", attempts.session_id),
                     cancel));
    }
  }
  return {};
}

// How many verdicts of the last verified attempt passed, of how many, and the tests they counted.
struct LastVerdicts {
  int passing = 0;
  int total = 0;
  int tests_passed = 0;
};

LastVerdicts last_verdicts(const SessionReport& report) {
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
    out.tests_passed += verdict.tests ? verdict.tests->passed : 0;
  }
  return out;
}

// Records what the attempt changed: its work committed on its branch (git), its changes against
// the start, and its patch beside its folder. Runs even after Ctrl-C: the work is kept.
Result<void> measure(tools::ProcessRunner& runner, const Attempts& attempts, Candidate& candidate) {
  const CancelToken keep_going;
  tools::WorkspaceChanges changes;
  if (attempts.git) {
    TRY_ASSIGN(candidate.end_commit,
               tools::commit_worktree(runner, candidate.workspace,
                                      fmt::format("ralph: attempt {} of best-of-N session {}",
                                                  candidate.index, attempts.session_id),
                                      keep_going));
    TRY_ASSIGN(changes,
               tools::changes_between_commits(runner, candidate.workspace.root, attempts.start,
                                              candidate.end_commit, keep_going));
  } else {
    TRY_ASSIGN(changes, tools::changes_between_folders(runner, attempts.base,
                                                       candidate.workspace.path, keep_going));
  }
  candidate.diff_file = attempts.dir / fmt::format("{}.diff", candidate.index);
  std::ofstream out(candidate.diff_file, std::ios::binary);
  out << changes.patch;
  if (!out.flush()) {
    return fail(ErrorKind::io, fmt::format("{}: cannot write", candidate.diff_file.string()));
  }
  candidate.changes = std::move(changes);
  return {};
}

// One attempt, hosted on the engine: a whole `ralph run` session in its own workspace.
void run_candidate(engine::Io& io, session::Runtime& runtime, const RunArgs& args,
                   const Config& config, const fs::path& source, const Attempts& attempts,
                   Candidate& candidate, const CancelToken& cancel) {
  session::Outputs outputs = outputs_of(args);
  if (!args.out_dir.empty()) {
    outputs.trace_dir = fs::path(args.out_dir) / std::to_string(candidate.index);
  }
  outputs.append_events = true; // one file for all attempts, each line with its session
  auto run = [&]() -> Result<void> {
    // Every attempt is recorded in the source workspace's store, over a connection of its own.
    TRY_ASSIGN(std::unique_ptr<store::SessionStore> store, session::open_store(config, source));
    session::SessionRequest request{.goal = args.goal,
                                    .workspace = candidate.workspace.path,
                                    .config = config,
                                    .outputs = std::move(outputs),
                                    .parent_id = attempts.session_id};
    TRY_ASSIGN(auto session, session::Session::prepare(runtime, std::move(request),
                                                       {.io = &io, .store = store.get()}, cancel));
    CandidateProgress progress(candidate.index, args.quiet);
    TRY_ASSIGN(const SessionReport report, session->run(progress));
    candidate.report = report;
    if (report.record_failure) {
      candidate.error = *report.record_failure;
    }
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
  const SessionReport& report = *candidate.report;
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
    const SessionReport& report = *candidate.report;
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

std::string commit_message(const std::string& goal, const Attempts& attempts,
                           const Candidate& winner, std::size_t n, const std::string& why) {
  return fmt::format("{}\n\nralph: best of {} attempts (session {}): attempt {} (session {}) "
                     "applied, {}.\n",
                     first_line(goal, 72), n, attempts.session_id, winner.index,
                     winner.report->session_id, why);
}

// Applies the winner's changes to the source: a commit on its current branch, or files. Nothing
// is applied when that cannot be done cleanly.
Result<std::string> apply_winner(tools::ProcessRunner& runner, const fs::path& source,
                                 const Attempts& attempts, const Candidate& winner,
                                 const std::string& message) {
  if (winner.changes->files.empty()) {
    return std::string();
  }
  // Not cancellable: Ctrl-C must not leave it half done.
  if (attempts.git) {
    return tools::apply_as_commit(runner, source, attempts.start, winner.end_commit,
                                  *winner.changes, message, CancelToken());
  }
  TRY(tools::apply_folder_changes(attempts.base, winner.workspace.path, *winner.changes, source));
  return std::string();
}

// The best-of-N session's row: the goal, and once done the outcome and what all attempts spent.
store::SessionRow parent_row(const std::string& id, const RunArgs& args, const fs::path& source,
                             const Config& config, const Redactor& redactor) {
  store::SessionRow row = session::new_session_row(id, args.goal, source, config, redactor, {});
  row.kind = store::SessionKind::best_of;
  return row;
}

} // namespace

Result<int> best_of_command(const RunArgs& args) {
  session::Runtime runtime;
  TRY_ASSIGN(const fs::path source, session::resolve_workspace(args.workspace));
  TRY_ASSIGN(const Config config, load_config(args, source, runtime.environment()));
  TRY(session::check_prices(config));
  TRY_ASSIGN(std::unique_ptr<store::SessionStore> store, session::open_store(config, source));
  if (!args.events_file.empty() && !args.append_events) {
    std::ofstream truncate(args.events_file, std::ios::trunc); // the attempts append to it
  }
  const auto started = std::chrono::steady_clock::now();
  CancelToken cancel;
  InterruptHandler interrupt(cancel);
  tools::PosixProcessRunner runner;
  Attempts attempts{.session_id = new_session_id()};
  attempts.dir = source / ".ralph" / "attempts" / attempts.session_id;
  std::error_code ec;
  fs::create_directories(attempts.dir, ec);
  if (ec) {
    return fail(ErrorKind::io,
                fmt::format("{}: cannot create: {}", attempts.dir.string(), ec.message()));
  }
  // Worktrees and copies are work in progress, never part of the source's own changes.
  if (const fs::path ignore = attempts.dir.parent_path() / ".gitignore"; !fs::exists(ignore, ec)) {
    std::ofstream(ignore) << "# Written by ralph: best-of-N attempts.\n*\n";
  }
  attempts.git = tools::in_git_repository(runner, source, cancel);
  const int n = args.parallel_attempts;
  std::vector<Candidate> candidates(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    candidates[static_cast<std::size_t>(k)].index = k + 1;
  }
  const Redactor& redactor = runtime.redactor();
  if (!args.quiet) {
    std::fputs(redactor
                   .redact(fmt::format("ralph {} · best of {} · {} · workspace {} · attempts in "
                                       "{}\n",
                                       RALPH_VERSION, n, session::agent_label(config),
                                       source.string(), attempts.dir.string()))
                   .c_str(),
               stderr);
  }
  {
    // A configuration that cannot make the agent or its verifiers (an unknown agent CLI, a
    // judge without a model) is said once, before any worktree is made.
    session::SessionRequest probe{.goal = args.goal, .workspace = source, .config = config};
    probe.config.store.enabled = false;
    TRY(session::Session::prepare(runtime, std::move(probe), {}, cancel));
  }
  if (auto made = make_workspaces(runner, source, attempts, candidates, cancel); !made) {
    if (cancel.cancelled()) {
      // Ctrl-C while git was making them: what was made stays for inspection, nothing ran.
      std::fprintf(stderr, "ralph: interrupted while making the attempts' workspaces in %s\n",
                   attempts.dir.c_str());
      return exit_code(Status::interrupted);
    }
    return fail(made.error());
  }
  store::SessionRow row = parent_row(attempts.session_id, args, source, config, redactor);
  if (store) {
    TRY(store->create_session(row));
  }

  {
    engine::Engine engine;
    for (Candidate& candidate : candidates) {
      engine.spawn([&](engine::Io& io) {
        run_candidate(io, runtime, args, config, source, attempts, candidate, cancel);
      });
    }
    engine.wait();
  }

  // Every attempt failed to start the same way (a configuration error): that error, once.
  if (std::all_of(candidates.begin(), candidates.end(),
                  [](const Candidate& c) { return !c.report && c.error; })) {
    row.status = Status::failed;
    row.reason = candidates.front().error->message;
    row.owner_pid = 0;
    row.owner_host.clear();
    if (store) {
      (void)store->update_session(row);
    }
    return fail(*candidates.front().error);
  }

  std::vector<CandidateScore> scores;
  BestOfReport report{.session_id = attempts.session_id, .workspace = source.string()};
  for (const Candidate& candidate : candidates) {
    scores.push_back(score_of(candidate));
    report.candidates.push_back(report_of(candidate));
  }
  const Ranking ranking = rank_candidates(scores);
  report.order = ranking.order;
  report.best = ranking.order.front();
  report.why = ranking.reason;
  const Candidate& best = candidates[static_cast<std::size_t>(report.best - 1)];
  int code = best.report ? exit_code(best.report->status) : 1;
  report.status = best.report ? best.report->status : Status::failed;
  if (cancel.cancelled()) {
    report.status = Status::interrupted;
    report.why = "interrupted; nothing applied";
    code = exit_code(Status::interrupted);
  } else if (ranking.winner) {
    const Candidate& winner = candidates[static_cast<std::size_t>(*ranking.winner - 1)];
    report.winner = winner.index;
    report.answer = winner.report->answer;
    report.unchanged = winner.changes->files.empty();
    const auto applied = apply_winner(
        runner, source, attempts, winner,
        commit_message(args.goal, attempts, winner, candidates.size(), ranking.reason));
    if (applied) {
      report.applied = true;
      report.commit = *applied;
    } else {
      report.apply_error = redactor.redact(applied.error().message);
      report.status = Status::failed;
      code = 2;
    }
  }

  row.status = report.status;
  row.reason =
      report.winner ? fmt::format("attempt {} won: {}", *report.winner, report.why) : report.why;
  if (!report.apply_error.empty()) {
    row.reason += "; not applied: " + report.apply_error;
  }
  row.answer = redactor.redact(report.answer);
  row.verified = report.applied;
  row.iterations = n;
  row.cost_known = true;
  for (const Candidate& candidate : candidates) {
    if (candidate.report) {
      row.input_tokens += candidate.report->usage.input_tokens;
      row.output_tokens += candidate.report->usage.output_tokens;
      row.cost_usd += candidate.report->cost_usd.value_or(0);
      row.cost_known = row.cost_known && candidate.report->cost_usd.has_value();
    }
  }
  row.elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - started)
                       .count();
  row.owner_pid = 0;
  row.owner_host.clear();
  row.updated_at = iso8601_utc(std::chrono::system_clock::now());
  if (store) {
    if (auto updated = store->update_session(row); !updated) {
      std::fprintf(stderr, "ralph: error: the session record is incomplete: %s\n",
                   redactor.redact(updated.error().message).c_str());
    }
  }

  if (args.json) {
    print_best_of_json(stdout, report);
  } else {
    if (!report.answer.empty()) {
      fmt::print(stdout, "{}\n\n", report.answer);
    }
    fmt::print(stdout, "{}", best_of_table(report));
    std::fflush(stdout);
  }
  if (!report.apply_error.empty()) {
    std::fprintf(stderr,
                 "ralph: error: the winning attempt was not applied: %s (every attempt "
                 "is kept under %s)\n",
                 report.apply_error.c_str(), attempts.dir.c_str());
  }
  return code;
}

} // namespace ralph::cli
