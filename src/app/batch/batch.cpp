#include "ralph/app/batch/batch.h"

#include "app/batch/batch_store.h"
#include "app/batch/goal_session.h"
#include "app/batch/goal_workspaces.h"
#include "store/file_lock.h"

#include "ralph/core/ids.h"
#include "ralph/core/try.h"
#include "ralph/engine/engine.h"
#include "ralph/session/notifications.h"
#include "ralph/session/record.h"
#include "ralph/store/event_log.h"
#include "ralph/store/jsonl_journal.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <tuple>
#include <unistd.h>
#include <utility>

namespace ralph::app {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

constexpr milliseconds k_progress_every{250};

// The statuses a goal is done with; `interrupted` (and `active`, a run killed) go on next time.
bool finished_status(Status status) {
  return status != Status::active && status != Status::interrupted;
}

// A goal's events: to the batch's events file under its session, and its attempt number to
// the progress. Fed by the goal's thread.
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
  Clock::time_point started;
  GoalSink sink;
};

class Batch {
public:
  Batch(session::Runtime& runtime, const BatchRequest& request, BatchObserver& observer,
        Clock& clock, const CancelToken& cancel)
      : m_runtime(runtime), m_request(request), m_observer(observer), m_clock(clock),
        m_cancel(cancel), m_start(clock.now()) {}

  Result<BatchEnd> run();

private:
  Result<void> open();
  Result<void> sort_goals();
  Result<void> count_finished(const GoalResult& result);
  void start(Slot& slot);
  void finish(Slot& slot, session::SessionReport report);
  void append(store::JsonlJournal& journal, const nlohmann::json& line);
  void ended(Slot& slot, session::SessionReport report);
  std::vector<std::pair<Slot*, session::SessionReport>> wait_for_goals();
  BatchProgress progress() const;
  int goals() const { return static_cast<int>(m_request.goals.size()); }

  session::Runtime& m_runtime;
  const BatchRequest& m_request;
  BatchObserver& m_observer;
  Clock& m_clock;
  CancelToken m_cancel; // the caller's
  CancelToken m_stop; // the sessions' parent: the caller's cancel, the batch's deadline and budgets
  std::string m_id;
  fs::path m_dir;
  std::optional<store::FileLock> m_lock;
  std::unique_ptr<store::SessionStore> m_owned_store;
  std::unique_ptr<BatchStore> m_store;
  std::unique_ptr<store::JsonlJournal> m_state;
  std::unique_ptr<store::JsonlJournal> m_results;
  std::unique_ptr<store::EventLog> m_events;
  engine::BlockingIo m_main_io; // the git commands that make workspaces, on this thread
  std::optional<GoalWorkspaces> m_workspaces;

  std::vector<std::unique_ptr<Slot>> m_slots;
  std::deque<Slot*> m_pending;
  std::vector<Slot*> m_running;
  std::vector<GoalResult> m_finished;
  int m_finished_now = 0;
  int m_unfinished = 0;
  Clock::time_point m_start;

  std::mutex m_mutex; // guards m_done and m_wake
  std::vector<std::pair<Slot*, session::SessionReport>> m_done;
  CancelToken m_wake; // cancelled when a goal ends, to end the wait at once
  // Last: destroyed first, waiting for every goal before what they use goes.
  std::unique_ptr<engine::Engine> m_engine;
};

Result<void> Batch::open() {
  if (!m_request.config.store.enabled) {
    return fail(ErrorKind::config, "ralph batch records every goal to resume it: store.enabled "
                                   "must not be false");
  }
  if (const auto problems =
          goal_price_problems(m_request.goals, m_request.goals_file, m_request.limits);
      !problems.empty()) {
    return fail(ErrorKind::config, fmt::format("{}", fmt::join(problems, "; ")));
  }
  TRY(session::check_notify_targets(m_request.config.notify, m_runtime.environment()));
  std::error_code ec;
  m_id = batch_id_of(fs::weakly_canonical(fs::absolute(m_request.goals_file), ec));
  m_dir = m_request.workspace / ".ralph" / "batch" / m_id;
  TRY_ASSIGN(m_owned_store, session::open_store(m_request.config, m_request.workspace));
  fs::create_directories(m_dir, ec);
  TRY_ASSIGN(auto lock, store::FileLock::try_acquire(m_dir / "lock"));
  if (!lock) {
    return fail(ErrorKind::usage, fmt::format("batch {} is running in another process (lock {})",
                                              m_id, (m_dir / "lock").string()));
  }
  m_lock = std::move(*lock);
  TRY(m_lock->write_holder(std::to_string(getpid())));
  const BudgetSettings& limits = m_request.limits;
  m_stop = limits.max_time.count() > 0 ? m_cancel.child(m_clock.now() + limits.max_time, m_clock)
                                       : m_cancel.child();
  m_store = std::make_unique<BatchStore>(*m_owned_store, limits, m_stop);
  TRY_ASSIGN(m_state, store::JsonlJournal::open(m_dir / "state.jsonl"));
  TRY_ASSIGN(m_results,
             store::JsonlJournal::open(m_request.results_file.empty() ? m_dir / "results.jsonl"
                                                                      : m_request.results_file));
  if (!m_request.outputs.events_file.empty()) {
    // Appended to: a resumed batch keeps the events of its earlier runs.
    TRY_ASSIGN(m_events,
               store::EventLog::open(m_request.outputs.events_file, "", Redactor(), true));
  }
  m_workspaces.emplace(m_request.workspace, m_dir, m_id, m_main_io.runner());
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
  for (const BatchGoal& goal : m_request.goals) {
    if (const auto result = results.find(goal.id); result != results.end()) {
      TRY(count_finished(result->second));
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

// A goal finished by an earlier run still counts in the batch's spend: what its session
// recorded, or, its record gone, what its results line says (a null cost there is unknown).
Result<void> Batch::count_finished(const GoalResult& result) {
  if (!result.session_id.empty()) {
    TRY_ASSIGN(const auto row, m_store->find_session(result.session_id));
    if (row) {
      m_store->count(*row);
      return {};
    }
  }
  store::SessionRow said;
  said.id = result.session_id.empty() ? "results line " + result.id : result.session_id;
  said.input_tokens = result.tokens;
  said.cost_usd = result.cost_usd.value_or(0);
  said.cost_known = result.cost_usd.has_value();
  m_store->count(said);
  return {};
}

void Batch::append(store::JsonlJournal& journal, const nlohmann::json& line) {
  if (auto written = journal.append(line); !written) {
    m_observer.journal_error(written.error());
  }
}

void Batch::start(Slot& slot) {
  const BatchGoal& goal = *slot.goal;
  auto made = m_workspaces->make(goal, m_stop);
  if (!made) {
    session::SessionReport report;
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
  append(*m_state, state);
  if (m_events) {
    slot.sink.log = m_events->for_session(slot.session_id);
  }
  slot.started = m_clock.now();
  m_running.push_back(&slot);
  m_observer.goal_started({.id = goal.id,
                           .session_id = slot.session_id,
                           .workspace = path,
                           .branch = slot.branch,
                           .resumed = slot.resume,
                           .position = static_cast<int>(m_finished.size() + m_running.size()),
                           .goals = goals()});
  GoalLaunch launch{.runtime = &m_runtime,
                    .batch = m_id,
                    .flags = &m_request.flags,
                    .goal = &goal,
                    .workspace = path,
                    .session_id = slot.session_id,
                    .resume = slot.resume,
                    .store = m_store.get(),
                    .parent = &m_stop,
                    .events = &slot.sink};
  m_engine->spawn([this, &slot, launch = std::move(launch)](engine::Io& io) {
    ended(slot, run_batch_goal(io, launch));
  });
}

// On the goal's thread.
void Batch::ended(Slot& slot, session::SessionReport report) {
  std::lock_guard lock(m_mutex);
  m_done.emplace_back(&slot, std::move(report));
  m_wake.cancel();
}

void Batch::finish(Slot& slot, session::SessionReport report) {
  std::erase(m_running, &slot);
  const BatchGoal& goal = *slot.goal;
  const nlohmann::json state = {
      {"id", goal.id}, {"session", slot.session_id}, {"status", to_string(report.status)}};
  if (!finished_status(report.status)) {
    ++m_unfinished;
    (void)m_state->append(state);
    m_observer.goal_stopped(goal.id, report);
    return;
  }
  nlohmann::json line = report_json(report);
  line["id"] = goal.id;
  line["workspace"] = slot.workspace;
  if (!slot.branch.empty()) {
    line["branch"] = slot.branch;
  }
  // The results line first: a goal with one is never run again.
  append(*m_results, line);
  append(*m_state, state);
  if (auto result = goal_result_of(line)) {
    m_finished.push_back(std::move(*result));
  }
  ++m_finished_now;
  m_observer.goal_finished({.id = goal.id,
                            .report = std::move(report),
                            .finished = static_cast<int>(m_finished.size()),
                            .goals = goals()});
}

// The goals that ended, waiting for one at most k_progress_every.
std::vector<std::pair<Slot*, session::SessionReport>> Batch::wait_for_goals() {
  CancelToken wake;
  bool waiting = false;
  {
    std::lock_guard lock(m_mutex);
    waiting = m_done.empty();
    wake = m_wake;
  }
  if (waiting) {
    m_clock.sleep_for(k_progress_every, wake);
  }
  std::lock_guard lock(m_mutex);
  m_wake = CancelToken();
  return std::exchange(m_done, {});
}

BatchProgress Batch::progress() const {
  BatchProgress out{.batch_id = m_id,
                    .goals = goals(),
                    .finished = m_finished,
                    .finished_now = m_finished_now,
                    .spend = m_store->spend()};
  const auto now = m_clock.now();
  out.elapsed = std::chrono::duration_cast<milliseconds>(now - m_start);
  for (const Slot* slot : m_running) {
    out.running.push_back({.id = slot->goal->id,
                           .running = std::chrono::duration_cast<milliseconds>(now - slot->started),
                           .attempt = slot->sink.attempt.load(std::memory_order_relaxed)});
  }
  return out;
}

Result<BatchEnd> Batch::run() {
  TRY(open());
  TRY(sort_goals());
  m_observer.batch_started({.batch_id = m_id,
                            .dir = m_dir,
                            .goals = goals(),
                            .finished = static_cast<int>(m_finished.size()),
                            .concurrency = m_request.concurrency});
  m_engine = std::make_unique<engine::Engine>();
  for (;;) {
    while (!m_stop.cancelled() && !m_pending.empty() &&
           m_running.size() < static_cast<std::size_t>(m_request.concurrency)) {
      Slot* next = m_pending.front();
      m_pending.pop_front();
      start(*next);
    }
    if (m_running.empty() && (m_pending.empty() || m_stop.cancelled())) {
      break;
    }
    for (auto& [slot, report] : wait_for_goals()) {
      finish(*slot, std::move(report));
    }
    m_observer.progress(progress());
  }
  m_engine.reset();
  BatchEnd end{.progress = progress(),
               .results_file = m_results->path().string(),
               .interrupted = m_cancel.cancelled(),
               .budget = m_store->spent()           ? m_store->spent()
                         : m_stop.deadline_passed() ? std::optional(BudgetKind::time)
                                                    : std::nullopt,
               .unfinished = m_unfinished,
               .not_started = static_cast<int>(m_pending.size()),
               .events_error = m_events ? m_events->error() : std::string()};
  if (!end.interrupted) {
    notify_batch_finished(m_runtime, m_request.config.notify, m_request.workspace, end);
  }
  return end;
}

} // namespace

void notify_batch_finished(session::Runtime& runtime, const std::vector<NotifyTarget>& targets,
                           const fs::path& workspace, const BatchEnd& end) {
  const BatchProgress& progress = end.progress;
  nlohmann::json statuses = nlohmann::json::object();
  int verified = 0;
  for (const GoalResult& goal : progress.finished) {
    auto& count = statuses[to_string(goal.status)];
    count = count.is_number() ? count.get<int>() + 1 : 1;
    verified += goal.verified ? 1 : 0;
  }
  nlohmann::json fields = {
      {"batch", {{"id", progress.batch_id}}},
      {"workspace", workspace.string()},
      {"goals", progress.goals},
      {"finished", progress.finished.size()},
      {"statuses", std::move(statuses)},
      {"verified", verified},
      {"unfinished", end.unfinished},
      {"not_started", end.not_started},
      {"budget", end.budget ? nlohmann::json(to_string(*end.budget)) : nlohmann::json(nullptr)},
      {"usage", {{"tokens", progress.spend.tokens}}},
      {"cost_usd", progress.spend.cost_known ? nlohmann::json(progress.spend.cost_usd)
                                             : nlohmann::json(nullptr)},
      {"duration_ms", progress.elapsed.count()},
      {"results_file", end.results_file}};
  session::post_notification(runtime, targets, NotifyEvent::batch_finished, fields,
                             "batch " + progress.batch_id);
}

Result<BudgetSettings> batch_limits(const BatchLimitTexts& texts) {
  Config scratch;
  const std::tuple<const std::string&, const char*, const std::string&> budgets[] = {
      {texts.tokens, "budget.max_tokens", texts.tokens_name},
      {texts.cost, "budget.max_cost_usd", texts.cost_name},
      {texts.time, "budget.max_time", texts.time_name}};
  for (const auto& [text, key, name] : budgets) {
    if (!text.empty()) {
      TRY(set_config_value(scratch, key, text, name));
    }
  }
  return scratch.budget;
}

Result<Config> batch_config(Config loaded, const fs::path& workspace) {
  if (!loaded.store.enabled) {
    return fail(ErrorKind::config, "ralph batch records every goal to resume it: store.enabled "
                                   "must not be false");
  }
  // Every goal's session and its outputs go to the batch's store, wherever the goal works.
  loaded.store.url = session::store_location(loaded, workspace);
  return loaded;
}

Result<BatchEnd> run_batch(session::Runtime& runtime, const BatchRequest& request,
                           BatchObserver& observer, Clock& clock, const CancelToken& cancel) {
  Batch batch(runtime, request, observer, clock, cancel);
  return batch.run();
}

} // namespace ralph::app
