#include "cli/worker_command.h"

#include "cli/batch_goal_run.h"
#include "cli/batch_goals.h"
#include "cli/batch_store.h"
#include "cli/interrupt.h"
#include "cli/job_thread.h"
#include "cli/requests.h"
#include "cli/run_report.h"

#include "ralph/core/config.h"
#include "ralph/core/host_name.h"
#include "ralph/core/ids.h"
#include "ralph/core/json.h"
#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/core/url.h"
#include "ralph/engine/engine.h"
#include "ralph/session/record.h"
#include "ralph/store/goal_queue.h"
#include "ralph/store/open_session_store.h"
#include "ralph/tools/repo_cache.h"
#include "ralph/tools/workspace_changes.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <unistd.h>

namespace ralph::cli {
namespace {

namespace fs = std::filesystem;
using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds k_first_poll{100};
constexpr milliseconds k_last_poll{2000};

// A goal's events are not kept (its record is in the store, its result in the queue); the end
// of each attempt saves a checkpoint of its workspace.
class GoalEvents final : public EventSink {
public:
  std::function<void()> attempt_finished; // called on the goal's engine thread

  void on_event(const Event& event) override {
    if (event.get<event::AttemptFinished>() != nullptr && attempt_finished) {
      attempt_finished();
    }
  }
};

// A goal this worker holds. The main thread owns it; each stage hands it to the git thread or a
// fiber and takes it back, so one thread at a time changes it (but `lost`).
struct Held {
  store::QueuedGoal row;
  BatchGoal goal;
  Config config;
  bool resume = false; // its session was started by an earlier claim
  std::string session_id;
  CancelToken cancel; // the worker's stop, and this goal's lease lost
  std::optional<tools::IsolatedWorkspace> worktree;
  fs::path workspace;
  std::string base_commit;        // where the worktree started, for the patch
  std::atomic<bool> lost = false; // another worker has it now
  GoalEvents events;
  std::optional<SessionReport> report; // how it ended: run, or before it could
  nlohmann::json result;               // its line of results, with where its changes are
};

// Where a goal is, each stage done on the thread that suits it: the git thread makes its
// workspace (prepared), the engine runs its session (ran), the git thread commits and pushes its
// result (recorded), and the main thread, which only talks to the queue, moves it on.
enum class Stage { prepared, ran, recorded };

// "host:pid:1a2b": unique among the workers of a queue, and says where each runs.
std::string worker_name() {
  const std::string random = new_session_id(); // its tail is random, its head the time
  return fmt::format("{}:{}:{}", host_name(), getpid(), random.substr(random.size() - 4));
}

class Worker {
public:
  Worker(const RunArgs& args, const WorkerArgs& worker) : m_args(args), m_worker(worker) {}

  Result<int> run();

private:
  Result<void> open();
  Result<void> claim();
  Result<void> renew();
  void start(store::QueuedGoal row);
  Result<Config> batch_config(const store::QueuedGoal& row);
  void prepare(Held& held);
  Result<void> make_workspace(Held& held, tools::ProcessRunner& runner);
  void launch(Held& held);
  void save_checkpoint(Held& held, tools::ProcessRunner& runner);
  Result<bool> advance(Held& held, Stage stage);
  Result<void> finish(Held& held);
  nlohmann::json result_of(const Held& held) const;
  void add_changes(Held& held, tools::ProcessRunner& runner) const;
  void ready(Held& held, Stage stage);
  void say(const std::string& line) const;

  RunArgs m_args;
  WorkerArgs m_worker;
  session::Runtime m_runtime;
  std::vector<Setting> m_flags; // the command line's, over each goal's recorded configuration
  fs::path m_workdir;
  std::optional<tools::RepoCache> m_repos; // in the workdir, shared by its workers
  Config m_local;                          // this machine's configuration: its store, its files
  std::string m_name = worker_name();
  std::unique_ptr<store::GoalQueue> m_queue;
  std::unique_ptr<store::SessionStore> m_owned_store;
  std::unique_ptr<BatchStore> m_store;
  std::map<std::string, Config> m_configs; // by batch
  CancelToken m_interrupt;
  std::optional<InterruptHandler> m_handler;

  // By claim: a goal this worker claims again (its own lease ran out) is another Held while the
  // first one's run winds down.
  std::map<store::GoalClaim, std::unique_ptr<Held>> m_held;
  std::mutex m_mutex; // guards m_ready
  std::condition_variable m_changed;
  std::vector<std::pair<Held*, Stage>> m_ready; // stages done, for the main thread
  int m_finished = 0;
  bool m_claimed_last = false; // the last claim got goals
  // The worker's git work, one job at a time as on the main thread before, but where a clone or
  // push that takes minutes no longer holds up lease renewal.
  engine::BlockingIo m_git_io;
  std::optional<JobThread> m_git;
  // Last: destroyed first, waiting for every goal before what they use goes.
  std::unique_ptr<engine::Engine> m_engine;
};

void Worker::say(const std::string& line) const {
  if (!m_args.quiet) {
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  }
}

Result<void> Worker::open() {
  if (!store::is_server_url(m_worker.queue)) {
    return fail(ErrorKind::usage,
                fmt::format("--queue '{}': expected a PostgreSQL URL (postgresql://...)",
                            url_without_password(m_worker.queue)));
  }
  std::error_code ec;
  m_workdir = fs::absolute(m_worker.workdir.empty() ? fs::path(".ralph") / "worker"
                                                    : fs::path(m_worker.workdir));
  fs::create_directories(m_workdir, ec);
  if (ec) {
    return fail(ErrorKind::io, fmt::format("--workdir {}: cannot create it: {}", m_workdir.string(),
                                           ec.message()));
  }
  m_repos.emplace(m_workdir / "repos");
  TRY_ASSIGN(m_flags, parse_settings(m_args.overrides));
  TRY_ASSIGN(m_local, load_config(m_args, m_workdir, m_runtime.environment()));
  m_local.store.enabled = true; // a goal taken over resumes from its record
  if (m_local.store.url.empty()) {
    // The queue's database: a worker on any machine resumes any other's goals.
    m_local.store.url = m_worker.queue;
  }
  // Faults are retried for as long as a lease lasts: past it, the goals are another's anyway.
  TRY_ASSIGN(m_queue,
             store::GoalQueue::open(m_worker.queue, std::max(m_worker.lease, milliseconds(10000))));
  TRY_ASSIGN(m_owned_store, session::open_store(m_local, m_workdir));
  m_store = std::make_unique<BatchStore>(*m_owned_store, BudgetSettings{}, m_interrupt);
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

// A worktree of the goal's repo at its ref, or an empty folder; made before a crash of this
// worker (same --workdir), it is found again.
Result<void> Worker::make_workspace(Held& held, tools::ProcessRunner& runner) {
  const fs::path path = m_workdir / "goals" / held.row.batch / held.goal.id;
  std::error_code ec;
  if (held.goal.repo_url.empty()) {
    fs::create_directories(path, ec);
    if (ec) {
      return fail(ErrorKind::io, fmt::format("{}: {}", path.string(), ec.message()));
    }
    held.workspace = path;
    return {};
  }
  // Fetched for every goal whose ref names a branch: a worker that runs for days starts each goal
  // from the branch as it is then.
  // Taken over from a worker that saved a checkpoint: its base commit, then its changes, so the
  // resumed session finds the files its record says it wrote (the ref may have moved since).
  const auto checkpoint = parse_json(held.row.checkpoint, "checkpoint").value_or(nlohmann::json());
  const std::string base(string_member(checkpoint, "base"));
  const bool restore = !base.empty();
  const std::string ref = restore ? base : held.goal.ref;
  TRY_ASSIGN(const fs::path source,
             m_repos->clone_of(runner, held.goal.repo_url, ref, held.cancel));
  const tools::IsolationRequest request{
      .source = source,
      .path = path,
      .branch = fmt::format("ralph/queue/{}/{}", held.row.batch, held.goal.id),
      .ref = ref};
  TRY_ASSIGN(auto found, tools::find_isolated_workspace(runner, request, held.cancel));
  if (!found) {
    TRY_ASSIGN(found, tools::make_isolated_workspace(runner, request, held.cancel));
    if (restore) {
      TRY(tools::apply_patch(runner, found->root, std::string(string_member(checkpoint, "patch")),
                             held.cancel));
      say(fmt::format("ralph worker: {}/{} · workspace restored from its checkpoint",
                      held.row.batch, held.row.id));
    }
  }
  held.worktree = std::move(*found);
  held.workspace = held.worktree->path;
  tools::ProcessSpec spec;
  spec.argv = {"git", "rev-parse", "HEAD"};
  spec.cwd = held.worktree->root;
  spec.merge_stderr = false;
  TRY_ASSIGN(const auto head, runner.run(spec, held.cancel));
  held.base_commit = std::string(trim(head.output));
  return {};
}

void Worker::start(store::QueuedGoal row) {
  auto owned = std::make_unique<Held>();
  Held& held = *owned;
  held.row = std::move(row);
  held.cancel = m_interrupt.child();
  m_held[store::claim_of(held.row)] = std::move(owned);
  const store::GoalClaim claim = store::claim_of(held.row);
  held.resume = !held.row.session_id.empty();
  held.session_id = held.resume ? held.row.session_id : new_session_id();
  const auto prepared = [&]() -> Result<void> {
    TRY_ASSIGN(held.config, batch_config(held.row));
    TRY_ASSIGN(held.goal,
               goal_from_spec(held.row.spec_json,
                              fmt::format("goal {}/{}", held.row.batch, held.row.id), held.config));
    held.config = held.goal.config;
    if (!held.resume) {
      // Before anything runs: whoever takes the goal over resumes this session.
      TRY_ASSIGN(const bool noted, m_queue->set_session(m_name, claim, held.session_id));
      if (!noted) {
        held.lost = true;
      }
    }
    return {};
  }();
  if (!prepared || held.lost) {
    SessionReport report;
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
void Worker::prepare(Held& held) {
  if (auto made = make_workspace(held, m_git_io.runner()); !made) {
    SessionReport report;
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

// On the main thread: the goal's session, on the engine.
void Worker::launch(Held& held) {
  say(fmt::format("ralph worker: {} {}/{} · try {} · {}", held.resume ? "resumed" : "started",
                  held.row.batch, held.row.id, held.row.tries, held.workspace.string()));
  GoalLaunch launch{.runtime = &m_runtime,
                    .flags = m_flags,
                    .goal = &held.goal,
                    .config = held.config,
                    .workspace = held.workspace,
                    .session_id = held.session_id,
                    .resume = held.resume,
                    .store = m_store.get(),
                    .parent = &held.cancel,
                    .events = &held.events};
  m_engine->spawn([this, &held, launch = std::move(launch)](engine::Io& io) {
    // On the goal's own fiber, before its next attempt asks its model anything.
    held.events.attempt_finished = [this, &held, &io] { save_checkpoint(held, io.runner()); };
    held.report = run_batch_goal(io, launch);
    ready(held, Stage::ran);
  });
}

void Worker::ready(Held& held, Stage stage) {
  {
    std::lock_guard lock(m_mutex);
    m_ready.emplace_back(&held, stage);
  }
  m_changed.notify_all();
}

// The goal's workspace as it is now, against the commit it started from, kept in the queue so
// that a worker taking the goal over elsewhere starts from it. A failure costs only that.
void Worker::save_checkpoint(Held& held, tools::ProcessRunner& runner) {
  // A stopped attempt is run again from its start, which the last checkpoint already holds.
  if (!held.worktree || held.cancel.cancelled()) {
    return;
  }
  auto patch = tools::worktree_patch(runner, *held.worktree, held.base_commit, held.cancel);
  Result<bool> saved = false;
  if (patch) {
    saved = m_queue->save_checkpoint(
        m_name, store::claim_of(held.row),
        nlohmann::json{{"base", held.base_commit}, {"patch", *patch}}.dump());
  }
  if (!patch || !saved) {
    say(fmt::format("ralph worker: {}/{} · checkpoint not saved: {}", held.row.batch, held.row.id,
                    (!patch ? patch.error() : saved.error()).message));
  }
}

// The goal's line of results.jsonl.
nlohmann::json Worker::result_of(const Held& held) const {
  nlohmann::json line = report_json(*held.report);
  line["id"] = held.goal.id;
  line["batch"] = held.row.batch;
  line["worker"] = m_name;
  line["tries"] = held.row.tries;
  line["session_id"] = held.session_id;
  return line;
}

// On the git thread: where the worktree's changes are, added to the result: a pushed branch, or
// the patch.
void Worker::add_changes(Held& held, tools::ProcessRunner& runner) const {
  const SessionReport& report = *held.report;
  nlohmann::json& line = held.result;
  const CancelToken cancel; // the result is kept even while stopping
  auto commit = tools::commit_worktree(
      runner, *held.worktree, fmt::format("ralph: {} ({})", held.goal.id, to_string(report.status)),
      cancel);
  if (!commit) {
    line["result_error"] = commit.error().message;
    return;
  }
  line["branch"] = held.worktree->branch;
  line["commit"] = *commit;
  if (!m_worker.push.empty()) {
    auto pushed = tools::push_branch(runner, *held.worktree, m_worker.push, cancel);
    if (pushed) {
      line["pushed_to"] = m_worker.push;
      return;
    }
    line["result_error"] = pushed.error().message; // the patch below keeps the work
  }
  auto changes = tools::changes_between_commits(runner, held.worktree->root, held.base_commit,
                                                *commit, cancel);
  if (changes) {
    line["patch"] = changes->patch;
    line["files"] = changes->files;
  } else {
    line["result_error"] = changes.error().message;
  }
}

// Whether the goal's result goes to the queue: it ran to an end, and this worker still holds it.
bool keeps_result(const Held& held) {
  return !held.lost && held.report->status != Status::interrupted &&
         held.report->status != Status::active;
}

// On the main thread: the goal's next stage, or its end in the queue (true).
Result<bool> Worker::advance(Held& held, Stage stage) {
  if (stage == Stage::prepared) {
    launch(held);
    return false;
  }
  if (stage == Stage::ran && keeps_result(held)) {
    held.result = result_of(held);
    if (held.worktree) {
      m_git->post([this, &held] {
        add_changes(held, m_git_io.runner());
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

Result<void> Worker::finish(Held& held) {
  const SessionReport& report = *held.report;
  const store::GoalClaim claim = store::claim_of(held.row);
  const std::string label = fmt::format("{}/{}", held.row.batch, held.row.id);
  if (held.lost) {
    say(fmt::format("ralph worker: {} · lease lost, another worker has it now", label));
    return {};
  }
  if (report.status == Status::interrupted || report.status == Status::active) {
    // Stopping: the goal goes back to the queue, its session kept to resume.
    TRY(m_queue->release(m_name, claim));
    say(fmt::format("ralph worker: {} · interrupted, given back to the queue", label));
    return {};
  }
  const store::GoalOutcome outcome{
      .completed = report.status == Status::completed,
      .status = std::string(to_string(report.status)),
      .session_id = held.session_id,
      .result_json = held.result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
      .verified = report.verified,
      .tokens = report.usage.input_tokens + report.usage.output_tokens,
      .cost_usd = report.cost_usd.value_or(0)};
  TRY_ASSIGN(const bool recorded, m_queue->finish(m_name, claim, outcome));
  ++m_finished;
  say(fmt::format("ralph worker: {} {}{}{}", label, to_string(report.status),
                  report.verified ? ", verified" : "",
                  recorded ? std::string() : " · not recorded: another worker has it now"));
  return {};
}

Result<void> Worker::claim() {
  const int free = m_worker.concurrency - static_cast<int>(m_held.size());
  if (free <= 0) {
    return {};
  }
  TRY_ASSIGN(auto rows, m_queue->claim(m_name, free, m_worker.lease));
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
  TRY_ASSIGN(const auto lost, m_queue->renew(m_name, claims, m_worker.lease));
  for (const store::GoalClaim& claim : lost) {
    const auto found = m_held.find(claim);
    if (found != m_held.end()) {
      found->second->lost = true;
      found->second->cancel.cancel();
    }
  }
  return {};
}

Result<int> Worker::run() {
  TRY(open());
  say(fmt::format("ralph {} · worker {} · {} · concurrency {} · lease {} · {}", RALPH_VERSION,
                  m_name, url_without_password(m_worker.queue), m_worker.concurrency,
                  fmt::format("{:.1f}s", static_cast<double>(m_worker.lease.count()) / 1000.0),
                  m_workdir.string()));
  m_handler.emplace(m_interrupt);
  m_engine = std::make_unique<engine::Engine>();
  m_git.emplace();
  milliseconds poll = k_first_poll;
  auto next_claim = SteadyClock::now();
  auto next_renew = SteadyClock::now() + m_worker.lease / 3;
  Result<void> fault;
  for (;;) {
    const auto now = SteadyClock::now();
    if (!m_interrupt.cancelled() && now >= next_claim) {
      m_claimed_last = false;
      fault = claim();
      if (!fault) {
        break;
      }
      // Claimed some: look again at once for the rest; none: back off.
      poll = m_claimed_last ? k_first_poll : std::min(poll * 2, k_last_poll);
      next_claim = now + (m_claimed_last ? milliseconds(0) : poll);
    }
    if (!m_held.empty() && now >= next_renew) {
      fault = renew();
      if (!fault) {
        break;
      }
      next_renew = now + m_worker.lease / 3;
    }
    std::vector<std::pair<Held*, Stage>> ready;
    {
      std::unique_lock lock(m_mutex);
      const auto until = std::min(m_held.empty() ? next_claim : std::min(next_claim, next_renew),
                                  SteadyClock::now() + milliseconds(200));
      m_changed.wait_until(lock, until, [this] { return !m_ready.empty(); });
      ready.swap(m_ready);
    }
    for (auto& [held, stage] : ready) {
      const Result<bool> finished = advance(*held, stage);
      if (!finished) {
        fault = tl::unexpected(finished.error());
        break;
      }
      if (*finished) {
        next_claim = SteadyClock::now(); // a free slot
      }
    }
    if (!fault) {
      break;
    }
    if (m_held.empty()) {
      if (m_interrupt.cancelled()) {
        break;
      }
      if (m_worker.exit_when_empty && !m_claimed_last) {
        TRY_ASSIGN(const bool work, m_queue->has_work());
        if (!work) {
          break;
        }
      }
    }
  }
  if (!fault) {
    // The goals left cannot be recorded: stopped now, they come back when their leases run out.
    m_interrupt.cancel();
  }
  m_engine.reset();
  m_git.reset(); // after its running job; the goals of the jobs left come back with their leases
  say(fmt::format("ralph worker: {} goal(s) finished{}", m_finished,
                  m_interrupt.cancelled() && fault ? " · stopped" : ""));
  if (!fault) {
    return tl::unexpected(fault.error());
  }
  return m_interrupt.cancelled() ? 130 : 0;
}

} // namespace

Result<int> worker_command(const RunArgs& args, const WorkerArgs& worker) {
  Worker run(args, worker);
  return run.run();
}

} // namespace ralph::cli
