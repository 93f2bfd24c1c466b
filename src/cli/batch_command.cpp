#include "cli/batch_command.h"

#include "cli/batch_goal_run.h"
#include "cli/batch_goals.h"
#include "cli/batch_store.h"
#include "cli/batch_view.h"
#include "cli/interrupt.h"
#include "cli/jsonl_journal.h"
#include "cli/requests.h"
#include "cli/terminal_view.h"
#include "store/file_lock.h"

#include "ralph/core/ids.h"
#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/engine/engine.h"
#include "ralph/session/record.h"
#include "ralph/session/settings.h"
#include "ralph/store/event_log.h"
#include "ralph/tools/isolated_workspace.h"
#include "ralph/tools/repo_cache.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <sys/ioctl.h>
#include <unistd.h>

namespace ralph::cli {
namespace {

namespace fs = std::filesystem;
using SteadyClock = std::chrono::steady_clock;

constexpr auto k_redraw = std::chrono::milliseconds(250);

// The statuses a goal is done with; `interrupted` (and `active`, a run killed) go on next time.
bool finished_status(Status status) {
  return status != Status::active && status != Status::interrupted;
}

// The batch's budgets, each checked by the configuration's key table as the per-goal ones are.
Result<BudgetSettings> batch_budget(const BatchArgs& batch) {
  Config scratch;
  const std::tuple<const std::string&, const char*, const char*> flags[] = {
      {batch.token_budget, "budget.max_tokens", "--batch-token-budget"},
      {batch.cost_budget, "budget.max_cost_usd", "--batch-cost-budget"},
      {batch.time_budget, "budget.max_time", "--batch-time-budget"}};
  for (const auto& [text, key, flag] : flags) {
    if (!text.empty()) {
      TRY(set_config_value(scratch, key, text, flag));
    }
  }
  return scratch.budget;
}

// A goal's events: to the batch's --events file under its session, and its attempt number to
// the live display. Fed by the goal's thread.
class GoalSink final : public EventSink {
public:
  void on_event(const Event& event) override {
    if (event.get<event::AttemptStarted>() != nullptr) {
      attempt.store(event.iteration, std::memory_order_relaxed);
    }
    if (log) {
      log->on_event(event);
    }
  }
  std::atomic<int> attempt{0};
  std::unique_ptr<store::EventLog> log;
};

// A goal not finished when the batch started.
struct Slot {
  const BatchGoal* goal = nullptr;
  std::string session_id;
  bool resume = false; // its session may have a record to go on from
  std::string workspace;
  std::string branch;
  SteadyClock::time_point started;
  GoalSink sink;
};

std::size_t terminal_width() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return size.ws_col;
  }
  return 100;
}

class Batch {
public:
  Batch(const RunArgs& args, const BatchArgs& batch) : m_args(args), m_batch(batch) {}

  Result<int> run();

private:
  Result<void> configure();
  Result<void> open(const fs::path& goals_file);
  Result<void> sort_goals();
  void start(Slot& slot);
  Result<fs::path> source_of(const BatchGoal& goal);
  Result<tools::IsolatedWorkspace> workspace_for(const BatchGoal& goal);
  void finish(Slot& slot, SessionReport report);
  void say(const std::string& line);
  void draw();
  BatchProgress progress() const;

  RunArgs m_args;
  BatchArgs m_batch;
  session::Runtime m_runtime;
  std::vector<Setting> m_flags; // the command line's, over each goal's recorded configuration
  fs::path m_workspace;
  Config m_config;
  std::vector<BatchGoal> m_goals;
  std::string m_id;
  fs::path m_dir;
  std::optional<store::FileLock> m_lock;
  CancelToken m_interrupt;
  CancelToken m_stop; // the sessions' parent: Ctrl-C, the batch's deadline and budgets
  std::optional<InterruptHandler> m_handler;
  std::unique_ptr<store::SessionStore> m_owned_store;
  std::unique_ptr<BatchStore> m_store;
  std::unique_ptr<JsonlJournal> m_state;
  std::unique_ptr<JsonlJournal> m_results;
  std::unique_ptr<store::EventLog> m_events;
  engine::BlockingIo m_main_io; // the git commands that make workspaces, on this thread
  std::map<std::pair<std::string, std::string>, Result<fs::path>> m_clones; // by URL and ref

  std::vector<std::unique_ptr<Slot>> m_slots;
  std::deque<Slot*> m_pending;
  std::vector<Slot*> m_running;
  std::vector<GoalResult> m_finished;
  int m_finished_now = 0;
  int m_unfinished = 0;
  SteadyClock::time_point m_start = SteadyClock::now();

  std::mutex m_mutex; // guards m_done
  std::condition_variable m_changed;
  std::vector<std::pair<Slot*, SessionReport>> m_done;

  bool m_live = false;
  std::size_t m_drawn = 0; // rows of the live display on screen
  // Last: destroyed first, waiting for every goal before what they use goes.
  std::unique_ptr<engine::Engine> m_engine;
};

Result<void> Batch::configure() {
  TRY_ASSIGN(m_workspace, session::resolve_workspace(m_args.workspace));
  TRY_ASSIGN(m_flags, parse_settings(m_args.overrides));
  TRY_ASSIGN(m_config, load_config(m_args, m_workspace, m_runtime.environment()));
  if (!m_config.store.enabled) {
    return fail(ErrorKind::config, "ralph batch records every goal to resume it: store.enabled "
                                   "must not be false");
  }
  // Every goal's session and its outputs go to the batch's store, wherever the goal works.
  m_config.store.url = session::store_location(m_config, m_workspace);
  return {};
}

Result<void> Batch::open(const fs::path& goals_file) {
  std::error_code ec;
  m_id = batch_id_of(fs::weakly_canonical(fs::absolute(goals_file), ec));
  m_dir = m_workspace / ".ralph" / "batch" / m_id;
  TRY_ASSIGN(m_owned_store, session::open_store(m_config, m_workspace));
  fs::create_directories(m_dir, ec);
  TRY_ASSIGN(auto lock, store::FileLock::try_acquire(m_dir / "lock"));
  if (!lock) {
    return fail(ErrorKind::usage, fmt::format("batch {} is running in another process (lock {})",
                                              m_id, (m_dir / "lock").string()));
  }
  m_lock = std::move(*lock);
  TRY(m_lock->write_holder(std::to_string(getpid())));
  TRY_ASSIGN(const BudgetSettings limits, batch_budget(m_batch));
  m_stop = limits.max_time.count() > 0 ? m_interrupt.child(SteadyClock::now() + limits.max_time)
                                       : m_interrupt.child();
  m_store = std::make_unique<BatchStore>(*m_owned_store, limits, m_stop);
  TRY_ASSIGN(m_state, JsonlJournal::open(m_dir / "state.jsonl"));
  TRY_ASSIGN(m_results,
             JsonlJournal::open(m_batch.results_file.empty() ? m_dir / "results.jsonl"
                                                             : fs::path(m_batch.results_file)));
  if (!m_args.events_file.empty()) {
    // Appended to: a resumed batch keeps the events of its earlier runs.
    TRY_ASSIGN(m_events, store::EventLog::open(m_args.events_file, "", Redactor(), true));
  }
  return {};
}

// Finished goals (a results line, or a record that ended) are kept; the others wait to start,
// in the file's order, those with a session going on from it.
Result<void> Batch::sort_goals() {
  std::map<std::string, GoalResult> results;
  for (const nlohmann::json& line : m_results->existing()) {
    if (auto result = goal_result_of(line)) {
      results.insert_or_assign(result->id, std::move(*result));
    }
  }
  std::map<std::string, const nlohmann::json*> states;
  for (const nlohmann::json& line : m_state->existing()) {
    if (line.contains("id") && line["id"].is_string()) {
      states[line["id"].get<std::string>()] = &line;
    }
  }
  for (const BatchGoal& goal : m_goals) {
    if (const auto result = results.find(goal.id); result != results.end()) {
      m_finished.push_back(result->second);
      continue;
    }
    auto slot = std::make_unique<Slot>();
    slot->goal = &goal;
    const auto state = states.find(goal.id);
    if (state == states.end() || !state->second->contains("session")) {
      slot->session_id = new_session_id();
      m_pending.push_back(m_slots.emplace_back(std::move(slot)).get());
      continue;
    }
    slot->session_id = state->second->value("session", "");
    slot->workspace = state->second->value("workspace", "");
    slot->branch = state->second->value("branch", "");
    slot->resume = true;
    TRY_ASSIGN(const auto row, m_store->find_session(slot->session_id));
    if (row) {
      m_store->count(*row);
    }
    if (row && finished_status(row->status)) {
      // Killed after the session ended and before its results line was written.
      TRY_ASSIGN(const auto record, m_store->load(slot->session_id));
      if (record) {
        Slot& kept = *m_slots.emplace_back(std::move(slot));
        finish(kept, session::report_from_record(*record));
        continue;
      }
    }
    m_pending.push_back(m_slots.emplace_back(std::move(slot)).get());
  }
  return {};
}

// Where the goal's workspace is made from: its `workspace` or local `repo`, the batch's clone of
// its `repo` URL (cloned once, fetched at most once per ref in a run), or the batch's workspace.
Result<fs::path> Batch::source_of(const BatchGoal& goal) {
  if (goal.repo_url.empty()) {
    return goal.source.empty() ? m_workspace : goal.source;
  }
  const std::pair<std::string, std::string> key(goal.repo_url, goal.ref);
  if (const auto found = m_clones.find(key); found != m_clones.end()) {
    return found->second;
  }
  tools::RepoCache cache(m_dir / "repos");
  auto clone = cache.clone_of(m_main_io.runner(), goal.repo_url, goal.ref, m_stop);
  return m_clones.insert_or_assign(key, std::move(clone)).first->second;
}

Result<tools::IsolatedWorkspace> Batch::workspace_for(const BatchGoal& goal) {
  TRY_ASSIGN(const fs::path source, source_of(goal));
  const tools::IsolationRequest request{.source = source,
                                        .path = m_dir / goal.id,
                                        .branch = fmt::format("ralph/batch/{}/{}", m_id, goal.id),
                                        .ref = goal.ref};
  // Made before a crash (the batch resumes in it), or now.
  TRY_ASSIGN(auto found, tools::find_isolated_workspace(m_main_io.runner(), request, m_stop));
  if (found) {
    return std::move(*found);
  }
  return tools::make_isolated_workspace(m_main_io.runner(), request, m_stop);
}

void Batch::start(Slot& slot) {
  const BatchGoal& goal = *slot.goal;
  auto made = workspace_for(goal);
  if (!made) {
    SessionReport report;
    report.reason = fmt::format("the goal's workspace: {}", made.error().message);
    report.error = Error{.kind = made.error().kind, .message = report.reason};
    finish(slot, std::move(report));
    return;
  }
  // The worktree's top is the source's counterpart: "DIR/." is said "DIR".
  const fs::path path = made->path.filename().empty() ? made->path.parent_path() : made->path;
  slot.workspace = path.string();
  slot.branch = made->branch;
  nlohmann::json state = {{"id", goal.id},
                          {"session", slot.session_id},
                          {"workspace", slot.workspace},
                          {"status", "running"}};
  if (!slot.branch.empty()) {
    state["branch"] = slot.branch;
  }
  if (auto written = m_state->append(state); !written) {
    say(fmt::format("ralph: error: {}", written.error().message));
  }
  GoalLaunch launch{.runtime = &m_runtime,
                    .flags = m_flags,
                    .goal = &goal,
                    .config = goal.config,
                    .workspace = path,
                    .session_id = slot.session_id,
                    .resume = slot.resume,
                    .store = m_store.get(),
                    .parent = &m_stop,
                    .events = &slot.sink};
  if (m_events) {
    slot.sink.log = m_events->for_session(slot.session_id);
  }
  slot.started = SteadyClock::now();
  m_running.push_back(&slot);
  if (!m_live && !m_args.quiet) {
    say(fmt::format("[{}/{}] {} {} · {}", m_finished.size() + m_running.size(), m_goals.size(),
                    slot.resume ? "resumed" : "started", goal.id, slot.workspace));
  }
  m_engine->spawn([this, &slot, launch = std::move(launch)](engine::Io& io) {
    SessionReport report = run_batch_goal(io, launch);
    {
      std::lock_guard lock(m_mutex);
      m_done.emplace_back(&slot, std::move(report));
    }
    m_changed.notify_all();
  });
}

void Batch::finish(Slot& slot, SessionReport report) {
  std::erase(m_running, &slot);
  const BatchGoal& goal = *slot.goal;
  const nlohmann::json state = {
      {"id", goal.id}, {"session", slot.session_id}, {"status", to_string(report.status)}};
  if (!finished_status(report.status)) {
    ++m_unfinished;
    (void)m_state->append(state);
    return;
  }
  nlohmann::json line = report_json(report);
  line["id"] = goal.id;
  line["workspace"] = slot.workspace;
  if (!slot.branch.empty()) {
    line["branch"] = slot.branch;
  }
  // The results line first: a goal with one is never run again.
  if (auto written = m_results->append(line); !written) {
    say(fmt::format("ralph: error: {}", written.error().message));
  }
  if (auto written = m_state->append(state); !written) {
    say(fmt::format("ralph: error: {}", written.error().message));
  }
  if (auto result = goal_result_of(line)) {
    m_finished.push_back(std::move(*result));
  }
  ++m_finished_now;
  if (!m_args.quiet) {
    say(fmt::format("[{}/{}] {} {}{} · {} attempt(s) · {} s{}", m_finished.size(), m_goals.size(),
                    goal.id, to_string(report.status), report.verified ? ", verified" : "",
                    report.iterations, report.duration_ms / 1000,
                    report.status == Status::completed || report.reason.empty()
                        ? std::string()
                        : " · " + first_line(report.reason, 200)));
  }
}

// A line above the live display (which is drawn again under it).
void Batch::say(const std::string& line) {
  if (m_live && m_drawn > 0) {
    std::string erase = "\r\x1b[2K";
    for (std::size_t i = 1; i < m_drawn; ++i) {
      erase += "\x1b[1A\x1b[2K";
    }
    std::fputs(erase.c_str(), stderr);
    m_drawn = 0;
  }
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

void Batch::draw() {
  const std::vector<std::string> lines = live_lines(progress(), terminal_width());
  std::string out = "\r\x1b[2K";
  for (std::size_t i = 1; i < m_drawn; ++i) {
    out += "\x1b[1A\x1b[2K";
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += (i > 0 ? "\n" : "") + lines[i];
  }
  std::fputs(out.c_str(), stderr);
  std::fflush(stderr);
  m_drawn = lines.size();
}

BatchProgress Batch::progress() const {
  BatchProgress out{.batch_id = m_id,
                    .goals = static_cast<int>(m_goals.size()),
                    .finished = m_finished,
                    .finished_now = m_finished_now,
                    .spend = m_store->spend()};
  const auto now = SteadyClock::now();
  out.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(now - m_start);
  for (const Slot* slot : m_running) {
    out.running.push_back(
        {.id = slot->goal->id,
         .running = std::chrono::duration_cast<std::chrono::milliseconds>(now - slot->started),
         .attempt = slot->sink.attempt.load(std::memory_order_relaxed)});
  }
  return out;
}

Result<int> Batch::run() {
  TRY(configure());
  // Every line is checked before anything is made or run.
  TRY_ASSIGN(GoalsFile file, read_goals_file(m_batch.goals_file, m_config));
  TRY_ASSIGN(const BudgetSettings limits, batch_budget(m_batch));
  for (const BatchGoal& goal : file.goals) {
    // Budgets in dollars need prices for every model of the goal: said now, with its line.
    Config config = goal.config;
    config.budget.max_cost_usd = std::max(config.budget.max_cost_usd, limits.max_cost_usd);
    if (auto priced = session::check_prices(config); !priced) {
      file.problems.push_back(
          fmt::format("{}:{}: {}", m_batch.goals_file, goal.line, priced.error().message));
    }
  }
  if (!file.problems.empty()) {
    for (const std::string& problem : file.problems) {
      std::fprintf(stderr, "%s\n", problem.c_str());
    }
    std::fprintf(stderr, "ralph batch: %zu problem(s) in %s; nothing was run\n",
                 file.problems.size(), m_batch.goals_file.c_str());
    return 2;
  }
  m_goals = std::move(file.goals);
  TRY(open(m_batch.goals_file));
  m_live = !m_args.quiet && TerminalView::live_wanted(stderr);
  TRY(sort_goals());
  if (!m_args.quiet) {
    say(fmt::format("ralph {} · batch {} · {} goal(s), {} finished already · concurrency {} · {}",
                    RALPH_VERSION, m_id, m_goals.size(), m_finished.size(), m_batch.concurrency,
                    m_dir.string()));
  }
  m_handler.emplace(m_interrupt);
  m_engine = std::make_unique<engine::Engine>();
  for (;;) {
    while (!m_stop.cancelled() && !m_pending.empty() &&
           m_running.size() < static_cast<std::size_t>(m_batch.concurrency)) {
      Slot* next = m_pending.front();
      m_pending.pop_front();
      start(*next);
    }
    if (m_running.empty() && (m_pending.empty() || m_stop.cancelled())) {
      break;
    }
    std::vector<std::pair<Slot*, SessionReport>> done;
    {
      std::unique_lock lock(m_mutex);
      m_changed.wait_for(lock, k_redraw, [this] { return !m_done.empty(); });
      done.swap(m_done);
    }
    for (auto& [slot, report] : done) {
      finish(*slot, std::move(report));
    }
    if (m_live) {
      draw();
    }
  }
  m_engine.reset();
  if (m_live) {
    say("");
  }

  const BatchEnd end{.results_file = m_results->path().string(),
                     .interrupted = m_interrupt.cancelled(),
                     .budget = m_store->spent() ? m_store->spent()
                               : m_stop.deadline_passed()
                                   ? std::optional<BudgetKind>(BudgetKind::time)
                                   : std::nullopt,
                     .unfinished = m_unfinished,
                     .not_started = static_cast<int>(m_pending.size())};
  const BatchProgress summary = progress();
  if (m_args.json) {
    std::printf("%s\n", summary_json(summary, end).c_str());
  } else {
    std::fputs(summary_table(summary, end).c_str(), stdout);
  }
  std::fflush(stdout);
  if (m_events && !m_events->error().empty()) {
    std::fprintf(stderr, "ralph: warning: %s\n", m_events->error().c_str());
  }
  if (end.interrupted) {
    return 130;
  }
  const bool all_finished = static_cast<int>(summary.finished.size()) == summary.goals;
  if (end.budget && !all_finished) {
    return 3;
  }
  const bool all_completed =
      all_finished &&
      std::all_of(summary.finished.begin(), summary.finished.end(),
                  [](const GoalResult& r) { return r.status == Status::completed; });
  return all_completed ? 0 : 1;
}

} // namespace

Result<int> batch_command(const RunArgs& args, const BatchArgs& batch) {
  Batch run(args, batch);
  return run.run();
}

} // namespace ralph::cli
