#include "ralph/app/batch/worker.h"

#include "app/batch/batch_store.h"
#include "app/batch/goal_session.h"
#include "app/batch/held_goal.h"
#include "app/batch/worker_schedule.h"

#include "ralph/core/host_name.h"
#include "ralph/core/ids.h"
#include "ralph/core/json.h"
#include "ralph/core/try.h"
#include "ralph/engine/engine.h"
#include "ralph/engine/job_thread.h"
#include "ralph/session/notifications.h"
#include "ralph/session/record.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <unistd.h>
#include <utility>

namespace ralph::app {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// Where a goal is, each stage done on the thread that suits it: the git thread makes its
// workspace (prepared), the engine runs its session (ran), the git thread commits and pushes its
// result (recorded), and the worker's thread, which only talks to the queue, moves it on.
enum class Stage { prepared, ran, recorded };

// "host:pid:1a2b": unique among the workers of a queue, and says where each runs.
std::string worker_name() {
  const std::string random = new_session_id(); // its tail is random, its head the time
  return fmt::format("{}:{}:{}", host_name(), getpid(), random.substr(random.size() - 4));
}

// Whether the goal's result goes to the queue: it ran to an end, and this worker still holds it.
bool keeps_result(const HeldGoal& held) {
  return !held.lost && held.report->status != Status::interrupted &&
         held.report->status != Status::active;
}

class Worker {
public:
  Worker(session::Runtime& runtime, const WorkerRequest& request, WorkerObserver& observer,
         store::GoalQueue& queue, Clock& clock, const CancelToken& cancel)
      : m_runtime(runtime), m_request(request), m_observer(observer), m_queue(queue),
        m_clock(clock), m_cancel(cancel), m_stop(cancel.child()),
        m_name(request.name.empty() ? worker_name() : request.name),
        m_repos(request.workdir / "repos") {}

  Result<WorkerEnd> run();

private:
  Result<void> open();
  Result<void> claim();
  Result<void> renew();
  void start(store::QueuedGoal row);
  Result<Config> batch_config(const store::QueuedGoal& row);
  void notify_if_batch_finished(const std::string& batch);
  void prepare(HeldGoal& held);
  void launch(HeldGoal& held);
  Result<bool> advance(HeldGoal& held, Stage stage);
  Result<void> finish(HeldGoal& held);
  nlohmann::json result_of(const HeldGoal& held) const;
  void ready(HeldGoal& held, Stage stage);
  std::vector<std::pair<HeldGoal*, Stage>> wait_until(Clock::time_point until);

  session::Runtime& m_runtime;
  const WorkerRequest& m_request;
  WorkerObserver& m_observer;
  store::GoalQueue& m_queue;
  Clock& m_clock;
  CancelToken m_cancel; // the caller's
  CancelToken m_stop;   // the caller's, or a fault of the queue: every goal stops
  std::string m_name;
  tools::RepoCache m_repos;                // in the workdir, shared by its workers
  Config m_local;                          // this machine's configuration: its store, its files
  std::map<std::string, Config> m_configs; // by batch
  std::unique_ptr<store::SessionStore> m_owned_store;
  std::unique_ptr<BatchStore> m_store;

  // By claim: a goal this worker claims again (its own lease ran out) is another HeldGoal while
  // the first one's run winds down.
  std::map<store::GoalClaim, std::unique_ptr<HeldGoal>> m_held;
  std::mutex m_mutex;                               // guards m_ready and m_wake
  std::vector<std::pair<HeldGoal*, Stage>> m_ready; // stages done, for the worker's thread
  CancelToken m_wake; // cancelled when a stage is done, to end the wait at once
  int m_finished = 0;
  bool m_claimed_last = false; // the last claim got goals
  // The worker's git work, one job at a time, where a clone or push that takes minutes does not
  // hold up lease renewal.
  engine::BlockingIo m_git_io;
  std::optional<engine::JobThread> m_git;
  // Last: destroyed first, waiting for every goal before what they use goes.
  std::unique_ptr<engine::Engine> m_engine;
};

Result<void> Worker::open() {
  m_local = m_request.config;
  m_local.store.enabled = true; // a goal taken over resumes from its record
  TRY(session::check_notify_targets(m_local.notify, m_runtime.environment()));
  TRY_ASSIGN(m_owned_store, session::open_store(m_local, m_request.workdir));
  m_store = std::make_unique<BatchStore>(*m_owned_store, BudgetSettings{}, m_stop);
  m_wake = m_stop.child();
  return {};
}

// The batch's configuration (its settings, resolved where it was queued) over this machine's,
// with this machine's store.
Result<Config> Worker::batch_config(const store::QueuedGoal& row) {
  if (const auto found = m_configs.find(row.batch); found != m_configs.end()) {
    return found->second;
  }
  Config config = m_local;
  const auto settings = parse_json(row.settings_json, "batch settings").value_or(nlohmann::json());
  if (const nlohmann::json* recorded = member(settings, "config"); recorded != nullptr) {
    TRY(apply_config_json(config, recorded->dump(), "batch " + row.batch));
  }
  config.store = m_local.store;
  return m_configs.insert_or_assign(row.batch, std::move(config)).first->second;
}

void Worker::start(store::QueuedGoal row) {
  auto owned = std::make_unique<HeldGoal>();
  HeldGoal& held = *owned;
  held.row = std::move(row);
  held.cancel = m_stop.child();
  const store::GoalClaim claim = store::claim_of(held.row);
  m_held[claim] = std::move(owned);
  held.resume = !held.row.session_id.empty();
  held.session_id = held.resume ? held.row.session_id : new_session_id();
  const auto prepared = [&]() -> Result<void> {
    TRY_ASSIGN(const Config config, batch_config(held.row));
    // The goal's line, read once: whatever runs it takes its settings and config as they are.
    TRY_ASSIGN(held.goal,
               goal_from_spec(held.row.spec_json,
                              fmt::format("goal {}/{}", held.row.batch, held.row.id), config));
    if (!held.resume) {
      // Before anything runs: whoever takes the goal over resumes this session.
      TRY_ASSIGN(const bool noted, m_queue.set_session(m_name, claim, held.session_id));
      if (!noted) {
        held.lost = true;
      }
    }
    return {};
  }();
  if (!prepared || held.lost) {
    session::SessionReport report;
    if (!prepared) {
      report.reason = fmt::format("the goal could not start: {}", prepared.error().message);
      report.error = prepared.error();
    }
    held.report = std::move(report);
    ready(held, Stage::ran);
    return;
  }
  m_git->post([this, &held] { prepare(held); });
}

// On the git thread: the goal's workspace, and whether its session already ended.
void Worker::prepare(HeldGoal& held) {
  if (auto made = make_goal_workspace(held, m_request.workdir, m_repos, m_git_io.runner()); !made) {
    session::SessionReport report;
    // Stopped or taken over while its workspace was being made: given back, not failed.
    report.status = held.cancel.cancelled() ? Status::interrupted : Status::failed;
    report.reason = fmt::format("the goal could not start: {}", made.error().message);
    report.error = made.error();
    held.report = std::move(report);
    ready(held, Stage::ran);
    return;
  }
  if (held.resume) {
    // Its session ended before the worker that ran it could record the result.
    auto found = m_store->find_session(held.session_id);
    if (found && *found && (*found)->status != Status::active &&
        (*found)->status != Status::interrupted) {
      if (auto record = m_store->load(held.session_id); record && *record) {
        held.report = session::report_from_record(**record);
        ready(held, Stage::ran);
        return;
      }
    }
  }
  ready(held, Stage::prepared);
}

// On the worker's thread: the goal's session, on the engine.
void Worker::launch(HeldGoal& held) {
  m_observer.goal_started(held.seen());
  GoalLaunch launch{.runtime = &m_runtime,
                    .batch = held.row.batch,
                    .flags = &m_request.flags,
                    .goal = &held.goal,
                    .workspace = held.workspace,
                    .session_id = held.session_id,
                    .resume = held.resume,
                    .store = m_store.get(),
                    .parent = &held.cancel,
                    .events = &held.events};
  m_engine->spawn([this, &held, launch = std::move(launch)](engine::Io& io) {
    // On the goal's own fiber, before its next attempt asks its model anything.
    held.events.attempt_finished = [this, &held, &io] {
      if (auto saved = save_goal_checkpoint(held, m_queue, m_name, io.runner()); !saved) {
        m_observer.checkpoint_not_saved(held.seen(), saved.error());
      }
    };
    held.report = run_batch_goal(io, launch);
    ready(held, Stage::ran);
  });
}

void Worker::ready(HeldGoal& held, Stage stage) {
  std::lock_guard lock(m_mutex);
  m_ready.emplace_back(&held, stage);
  m_wake.cancel();
}

// The stages done, waiting for one until `until` at most (or until the worker is stopped).
std::vector<std::pair<HeldGoal*, Stage>> Worker::wait_until(Clock::time_point until) {
  CancelToken wake;
  bool waiting = false;
  {
    std::lock_guard lock(m_mutex);
    waiting = m_ready.empty();
    wake = m_wake;
  }
  const auto now = m_clock.now();
  if (waiting && until > now) {
    m_clock.sleep_for(std::chrono::duration_cast<milliseconds>(until - now), wake);
  }
  std::lock_guard lock(m_mutex);
  // Stopping, the waits are for the goals winding down (and their renewals): a stop that stays
  // cancelled must not end each of them at once.
  m_wake = m_stop.cancelled() ? CancelToken() : m_stop.child();
  return std::exchange(m_ready, {});
}

// The goal's line of results.jsonl.
nlohmann::json Worker::result_of(const HeldGoal& held) const {
  nlohmann::json line = report_json(*held.report);
  line["id"] = held.goal.id;
  line["batch"] = held.row.batch;
  line["worker"] = m_name;
  line["tries"] = held.row.tries;
  line["session_id"] = held.session_id;
  return line;
}

// On the worker's thread: the goal's next stage, or its end in the queue (true).
Result<bool> Worker::advance(HeldGoal& held, Stage stage) {
  if (std::exchange(held.restored, false)) {
    m_observer.workspace_restored(held.seen());
  }
  if (stage == Stage::prepared) {
    launch(held);
    return false;
  }
  if (stage == Stage::ran && keeps_result(held)) {
    held.result = result_of(held);
    if (held.worktree) {
      m_git->post([this, &held] {
        add_goal_changes(held, m_request.push, m_git_io.runner());
        ready(held, Stage::recorded);
      });
      return false;
    }
  }
  const Result<void> finished = finish(held);
  m_held.erase(store::claim_of(held.row));
  TRY(finished);
  return true;
}

Result<void> Worker::finish(HeldGoal& held) {
  const session::SessionReport& report = *held.report;
  const store::GoalClaim claim = store::claim_of(held.row);
  if (held.lost) {
    m_observer.lease_lost(held.seen());
    return {};
  }
  const std::int64_t tokens = report.usage.input_tokens + report.usage.output_tokens;
  // A report has a cost when every model used has a price; no tokens spent cost nothing.
  const store::GoalSpent spent{.tokens = tokens,
                               .cost_usd = report.cost_usd.value_or(0),
                               .cost_known = report.cost_usd.has_value() || tokens == 0};
  if (report.status == Status::interrupted || report.status == Status::active) {
    // Stopping: the goal goes back to the queue, its session kept to resume.
    TRY(m_queue.release(m_name, claim, spent));
    m_observer.goal_released(held.seen());
    return {};
  }
  const store::GoalOutcome outcome{
      .completed = report.status == Status::completed,
      .status = std::string(to_string(report.status)),
      .session_id = held.session_id,
      .result_json = held.result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
      .verified = report.verified,
      .spent = spent};
  TRY_ASSIGN(const bool recorded, m_queue.finish(m_name, claim, outcome));
  ++m_finished;
  m_observer.goal_finished(held.seen(), report, recorded);
  if (recorded) {
    notify_if_batch_finished(held.row.batch);
  }
  return {};
}

// After a goal of `batch` was finished by this worker: batch_finished when no goal of it is left
// queued or running. Two workers finishing its last two goals at the same moment may both send it.
void Worker::notify_if_batch_finished(const std::string& batch) {
  if (m_local.notify.empty()) {
    return;
  }
  const auto found = m_queue.status(batch);
  if (!found || !*found || (*found)->queued != 0 || (*found)->running != 0) {
    return;
  }
  const store::QueueStatus& status = **found;
  nlohmann::json fields = {
      {"batch", {{"id", batch}}},
      {"worker", m_name},
      {"goals", status.goals()},
      {"finished", status.done + status.failed},
      {"statuses", status.statuses},
      {"verified", status.verified},
      {"usage", {{"tokens", status.tokens}}},
      {"cost_usd", status.cost_known ? nlohmann::json(status.cost_usd) : nlohmann::json(nullptr)}};
  session::post_notification(m_runtime, m_local.notify, NotifyEvent::batch_finished, fields,
                             "batch " + batch);
}

Result<void> Worker::claim() {
  const int free = m_request.concurrency - static_cast<int>(m_held.size());
  if (free <= 0) {
    return {};
  }
  TRY_ASSIGN(auto rows, m_queue.claim(m_name, free, m_request.lease));
  for (store::QueuedGoal& row : rows) {
    start(std::move(row));
  }
  m_claimed_last = !rows.empty();
  return {};
}

Result<void> Worker::renew() {
  std::vector<store::GoalClaim> claims;
  for (const auto& [key, held] : m_held) {
    if (!held->lost) {
      claims.push_back(store::claim_of(held->row));
    }
  }
  TRY_ASSIGN(const auto lost, m_queue.renew(m_name, claims, m_request.lease));
  for (const store::GoalClaim& claim : lost) {
    const auto found = m_held.find(claim);
    if (found != m_held.end()) {
      found->second->lost = true;
      found->second->cancel.cancel();
    }
  }
  return {};
}

Result<WorkerEnd> Worker::run() {
  TRY(open());
  m_observer.worker_started({.name = m_name,
                             .workdir = m_request.workdir,
                             .concurrency = m_request.concurrency,
                             .lease = m_request.lease});
  m_engine = std::make_unique<engine::Engine>();
  m_git.emplace();
  WorkerSchedule schedule(m_clock.now(), m_request.lease);
  Result<void> fault;
  for (;;) {
    const auto now = m_clock.now();
    if (!m_stop.cancelled() && schedule.claim_due(now)) {
      const bool idle = m_held.empty();
      m_claimed_last = false;
      fault = claim();
      if (!fault) {
        break;
      }
      schedule.claimed(now, m_claimed_last, idle);
    }
    if (!m_held.empty() && schedule.renew_due(now)) {
      fault = renew();
      if (!fault) {
        break;
      }
      schedule.renewed(now);
    }
    for (auto& [held, stage] : wait_until(schedule.next(!m_held.empty(), m_stop.cancelled()))) {
      const Result<bool> finished = advance(*held, stage);
      if (!finished) {
        fault = tl::unexpected(finished.error());
        break;
      }
      if (*finished) {
        schedule.slot_freed(m_clock.now());
      }
    }
    if (!fault) {
      break;
    }
    if (m_held.empty()) {
      if (m_stop.cancelled()) {
        break;
      }
      if (m_request.exit_when_empty && !m_claimed_last) {
        TRY_ASSIGN(const bool work, m_queue.has_work());
        if (!work) {
          break;
        }
      }
    }
  }
  if (!fault) {
    // The goals left cannot be recorded: stopped now, they come back when their leases run out.
    m_stop.cancel();
  }
  m_engine.reset();
  m_git.reset(); // after its running job; the goals of the jobs left come back with their leases
  return WorkerEnd{.finished = m_finished,
                   .interrupted = m_cancel.cancelled(),
                   .fault = fault ? std::nullopt : std::optional<Error>(fault.error())};
}

} // namespace

Result<WorkerEnd> run_worker(session::Runtime& runtime, const WorkerRequest& request,
                             WorkerObserver& observer, store::GoalQueue& queue, Clock& clock,
                             const CancelToken& cancel) {
  Worker worker(runtime, request, observer, queue, clock, cancel);
  return worker.run();
}

} // namespace ralph::app
