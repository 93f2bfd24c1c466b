#include "server/batches.h"

#include "server/store_watch.h"

#include "ralph/app/batch/batch.h"
#include "ralph/app/batch/goals_file.h"
#include "ralph/core/clock.h"
#include "ralph/core/ids.h"
#include "ralph/core/time.h"
#include "ralph/core/try.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>

namespace ralph::server {
namespace fs = std::filesystem;

namespace {

nlohmann::json cost_or_null(double cost, bool known) {
  return known ? nlohmann::json(cost) : nlohmann::json(nullptr);
}

std::vector<nlohmann::json> read_lines(const fs::path& file) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    nlohmann::json parsed = nlohmann::json::parse(line, nullptr, false);
    if (parsed.is_object()) {
      lines.push_back(std::move(parsed));
    }
  }
  return lines;
}

// The verifiers that failed in a session's last attempt.
std::vector<std::string> failing_verifiers(const store::SessionRecord& record) {
  std::vector<std::string> failing;
  const int last = record.session.iterations;
  for (const store::VerdictRow& verdict : record.verdicts) {
    if (verdict.iteration == last && verdict.result != Outcome::pass) {
      failing.push_back(verdict.verifier);
    }
  }
  return failing;
}

} // namespace

// A batch this server runs.
struct Batches::Hosted {
  std::string id;
  std::vector<nlohmann::json> goals; // their lines, for a re-run
  nlohmann::json settings;
  CancelToken cancel;
  std::string created_at;
  std::mutex mutex;
  std::string state = "running";
  app::BatchProgress progress;
  std::thread thread;
};

struct Batches::Folder {
  struct Goal {
    std::string id;
    std::string session_id;
    std::string state = "queued"; // queued, running, done, failed
    std::string status;
    bool verified = false;
    int attempts = 0;
    std::int64_t tokens = 0;
    std::optional<double> cost;
  };
  std::vector<Goal> goals; // in the order they were first seen
  std::string created_at;
  bool locked = false; // a process runs it now
};

namespace {

// The terminal's BatchObserver's counterpart: what the batch does, on the bus.
class BusObserver final : public app::BatchObserver {
public:
  BusObserver(EventBus& bus, std::string id, std::function<void(const std::string&)> learnt,
              std::function<void(const app::BatchProgress&)> progress)
      : m_bus(bus), m_id(std::move(id)), m_topic("batch:" + m_id), m_learnt(std::move(learnt)),
        m_progress(std::move(progress)) {}

  void batch_started(const app::BatchStart&) override {}
  void goal_started(const app::GoalStart& goal) override {
    m_learnt(goal.session_id);
    publish_goal({{"id", goal.id}, {"state", "running"}, {"session_id", goal.session_id}});
  }
  void goal_finished(const app::FinishedGoal& goal) override {
    const bool done = goal.report.status == Status::completed;
    publish_goal({{"id", goal.id},
                  {"state", done ? "done" : "failed"},
                  {"status", to_string(goal.report.status)},
                  {"verified", goal.report.verified},
                  {"session_id", goal.report.session_id},
                  {"iterations", goal.report.iterations},
                  {"tokens", goal.report.usage.input_tokens + goal.report.usage.output_tokens},
                  {"cost_usd", goal.report.cost_usd ? nlohmann::json(*goal.report.cost_usd)
                                                    : nlohmann::json(nullptr)}});
  }
  void goal_stopped(const std::string& id, const session::SessionReport& report) override {
    publish_goal({{"id", id},
                  {"state", "queued"},
                  {"status", to_string(report.status)},
                  {"session_id", report.session_id}});
  }
  void progress(const app::BatchProgress& progress) override { m_progress(progress); }
  void journal_error(const Error& error) override {
    m_bus.publish({m_topic}, "warning",
                  nlohmann::json{{"batch", m_id}, {"message", error.message}}.dump());
  }

private:
  void publish_goal(nlohmann::json goal) {
    m_bus.publish({m_topic}, "goal",
                  nlohmann::json{{"batch", m_id}, {"goal", std::move(goal)}}.dump());
  }

  EventBus& m_bus;
  std::string m_id;
  std::string m_topic;
  std::function<void(const std::string&)> m_learnt;
  std::function<void(const app::BatchProgress&)> m_progress;
};

} // namespace

Batches::Batches(session::Runtime& runtime, const ServeRequest& request, store::GoalQueue* queue,
                 EventBus& bus)
    : m_runtime(runtime), m_request(request), m_queue(queue), m_bus(bus) {}

Batches::~Batches() {
  std::vector<std::shared_ptr<Hosted>> hosted;
  {
    const std::lock_guard lock(m_mutex);
    for (auto& [id, batch] : m_hosted) {
      batch->cancel.cancel();
      hosted.push_back(batch);
    }
  }
  for (auto& batch : hosted) {
    if (batch->thread.joinable()) {
      batch->thread.join();
    }
  }
}

Batches::Folder Batches::read_folder(const fs::path& dir) {
  Folder folder;
  std::map<std::string, std::size_t> index;
  auto goal = [&](const std::string& id) -> Folder::Goal& {
    const auto [at, added] = index.emplace(id, folder.goals.size());
    if (added) {
      folder.goals.push_back({.id = id});
    }
    return folder.goals[at->second];
  };
  for (const nlohmann::json& line : read_lines(dir / "state.jsonl")) {
    const std::string id = line.value("id", "");
    if (id.empty()) {
      continue;
    }
    Folder::Goal& g = goal(id);
    g.session_id = line.value("session", g.session_id);
    g.state = line.value("status", "") == "running" ? "running" : "queued";
  }
  for (const nlohmann::json& line : read_lines(dir / "results.jsonl")) {
    const auto result = app::goal_result_of(line);
    if (!result) {
      continue;
    }
    Folder::Goal& g = goal(result->id);
    g.session_id = result->session_id.empty() ? g.session_id : result->session_id;
    g.state = result->status == Status::completed ? "done" : "failed";
    g.status = to_string(result->status);
    g.verified = result->verified;
    g.attempts = result->attempts;
    g.tokens = result->tokens;
    g.cost = result->cost_usd;
  }
  std::error_code error;
  const auto written = fs::last_write_time(dir, error);
  if (!error) {
    const auto system = std::chrono::file_clock::to_sys(written);
    folder.created_at = iso8601_utc(system);
  }
  std::ifstream lock(dir / "lock");
  std::string holder;
  folder.locked = std::getline(lock, holder) && !holder.empty();
  const std::lock_guard guard(m_mutex);
  for (const Folder::Goal& g : folder.goals) {
    if (!g.session_id.empty()) {
      m_session_batch[g.session_id] = dir.filename().string();
    }
  }
  return folder;
}

std::string Batches::batch_of(const std::string& session_id) {
  const std::lock_guard lock(m_mutex);
  const auto found = m_session_batch.find(session_id);
  return found == m_session_batch.end() ? std::string() : found->second;
}

Result<std::set<std::string>> Batches::sessions_of(const std::string& id) {
  std::set<std::string> sessions;
  const fs::path dir = m_request.workspace / ".ralph" / "batch" / id;
  std::error_code error;
  if (fs::is_directory(dir, error)) {
    for (const Folder::Goal& goal : read_folder(dir).goals) {
      if (!goal.session_id.empty()) {
        sessions.insert(goal.session_id);
      }
    }
  } else if (m_queue) {
    TRY_ASSIGN(const auto goals, m_queue->goals(id));
    const std::lock_guard lock(m_mutex);
    for (const store::QueuedGoal& goal : goals) {
      if (!goal.session_id.empty()) {
        sessions.insert(goal.session_id);
        m_session_batch[goal.session_id] = id;
      }
    }
  }
  return sessions;
}

Result<nlohmann::json> Batches::list() {
  nlohmann::json batches = nlohmann::json::array();
  const fs::path root = m_request.workspace / ".ralph" / "batch";
  std::error_code error;
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(root, error)) {
    if (entry.is_directory()) {
      dirs.push_back(entry.path());
    }
  }
  for (const fs::path& dir : dirs) {
    const std::string id = dir.filename().string();
    const Folder folder = read_folder(dir);
    std::shared_ptr<Hosted> hosted;
    {
      const std::lock_guard lock(m_mutex);
      if (const auto found = m_hosted.find(id); found != m_hosted.end()) {
        hosted = found->second;
      }
    }
    int counts[4] = {0, 0, 0, 0}; // queued, running, done, failed
    int verified = 0;
    std::int64_t tokens = 0;
    double cost = 0;
    bool cost_known = true;
    for (const Folder::Goal& g : folder.goals) {
      const int slot = g.state == "running"  ? 1
                       : g.state == "done"   ? 2
                       : g.state == "failed" ? 3
                                             : 0;
      ++counts[slot];
      verified += g.verified ? 1 : 0;
      tokens += g.tokens;
      if (g.cost) {
        cost += *g.cost;
      } else if (slot >= 2) {
        cost_known = false;
      }
    }
    int goals = static_cast<int>(folder.goals.size());
    std::string state =
        folder.locked ? "running" : (counts[0] + counts[1] == 0 ? "finished" : "stopped");
    nlohmann::json cost_budget = nullptr;
    std::string created_at = folder.created_at;
    if (hosted) {
      const std::lock_guard lock(hosted->mutex);
      goals = static_cast<int>(hosted->goals.size());
      counts[0] = goals - counts[1] - counts[2] - counts[3];
      state = hosted->state;
      created_at = hosted->created_at;
      if (hosted->progress.goals > 0) {
        tokens = hosted->progress.spend.tokens;
        cost = hosted->progress.spend.cost_usd;
        cost_known = hosted->progress.spend.cost_known;
      }
      const double budget = hosted->settings.value("cost_budget", 0.0);
      cost_budget = budget > 0 ? nlohmann::json(budget) : nlohmann::json(nullptr);
    }
    batches.push_back({{"id", id},
                       {"source", "local"},
                       {"hosted", hosted != nullptr},
                       {"state", state},
                       {"goals", goals},
                       {"queued", counts[0]},
                       {"running", counts[1]},
                       {"done", counts[2]},
                       {"failed", counts[3]},
                       {"verified", verified},
                       {"tokens", tokens},
                       {"cost_usd", cost_or_null(cost, cost_known)},
                       {"cost_budget", cost_budget},
                       {"created_at", created_at}});
  }
  if (m_queue) {
    TRY_ASSIGN(const auto queued, m_queue->batches());
    for (const store::QueueStatus& status : queued) {
      batches.push_back(queue_batch_json(status));
    }
  }
  std::sort(batches.begin(), batches.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a["created_at"].get<std::string>() > b["created_at"].get<std::string>();
  });
  return nlohmann::json{{"batches", std::move(batches)}};
}

Result<nlohmann::json> Batches::show(const std::string& id, store::SessionStore& store) {
  TRY_ASSIGN(nlohmann::json all, list());
  nlohmann::json batch;
  for (const nlohmann::json& entry : all["batches"]) {
    if (entry["id"] == id) {
      batch = entry;
    }
  }
  if (batch.is_null()) {
    return nlohmann::json(nullptr);
  }
  std::map<std::string, std::string> texts; // goal id -> its text
  {
    const std::lock_guard lock(m_mutex);
    if (const auto found = m_hosted.find(id); found != m_hosted.end()) {
      for (const nlohmann::json& line : found->second->goals) {
        texts[line.value("id", "")] = line.value("goal", "");
      }
    }
  }
  nlohmann::json goals = nlohmann::json::array();
  std::map<std::string, int> failing_count;
  auto add_goal = [&](nlohmann::json goal, const std::string& session_id) {
    std::vector<std::string> failing;
    if (!session_id.empty()) {
      if (auto record = store.load(session_id); record && *record) {
        if (!goal.contains("goal") || goal["goal"].get<std::string>().empty()) {
          goal["goal"] = (*record)->session.goal;
        }
        goal["iterations"] = (*record)->session.iterations;
        if (goal.value("state", "") == "failed") {
          failing = failing_verifiers(**record);
        }
      }
    }
    for (const std::string& verifier : failing) {
      ++failing_count[verifier];
    }
    goal["failing"] = failing;
    goals.push_back(std::move(goal));
  };
  if (batch["source"] == "queue" && m_queue) {
    TRY_ASSIGN(const auto queued, m_queue->goals(id));
    for (const store::QueuedGoal& g : queued) {
      const nlohmann::json spec = nlohmann::json::parse(g.spec_json, nullptr, false);
      add_goal({{"id", g.id},
                {"goal", spec.is_object() ? spec.value("goal", "") : ""},
                {"state", std::string(store::to_string(g.state))},
                {"status", g.status},
                {"verified", g.verified},
                {"session_id", g.session_id},
                {"worker", g.worker},
                {"tokens", g.tokens},
                {"cost_usd", cost_or_null(g.cost_usd, g.cost_known)}},
               g.session_id);
    }
  } else {
    const Folder folder = read_folder(m_request.workspace / ".ralph" / "batch" / id);
    std::set<std::string> seen;
    for (const Folder::Goal& g : folder.goals) {
      seen.insert(g.id);
      add_goal({{"id", g.id},
                {"goal", texts[g.id]},
                {"state", g.state},
                {"status", g.status},
                {"verified", g.verified},
                {"session_id", g.session_id},
                {"tokens", g.tokens},
                {"cost_usd", g.cost ? nlohmann::json(*g.cost) : nlohmann::json(nullptr)}},
               g.session_id);
    }
    for (const auto& [goal_id, text] : texts) {
      if (!seen.count(goal_id)) {
        add_goal({{"id", goal_id},
                  {"goal", text},
                  {"state", "queued"},
                  {"status", ""},
                  {"verified", false},
                  {"session_id", ""},
                  {"tokens", 0},
                  {"cost_usd", nullptr}},
                 "");
      }
    }
  }
  std::vector<std::pair<std::string, int>> histogram(failing_count.begin(), failing_count.end());
  std::stable_sort(histogram.begin(), histogram.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  nlohmann::json failing = nlohmann::json::array();
  for (const auto& [verifier, count] : histogram) {
    failing.push_back({{"verifier", verifier}, {"goals", count}});
  }
  batch["goal_list"] = std::move(goals);
  batch["failing_verifiers"] = std::move(failing);
  return batch;
}

Result<std::string> Batches::start(const nlohmann::json& body) {
  if (!body.is_object() || !body.contains("goals") || !body["goals"].is_array() ||
      body["goals"].empty()) {
    return fail(ErrorKind::usage, "'goals': a list of goals-file lines (objects) is required");
  }
  std::vector<nlohmann::json> goals;
  for (const nlohmann::json& line : body["goals"]) {
    if (!line.is_object()) {
      return fail(ErrorKind::usage, "'goals': each goal is a JSON object");
    }
    goals.push_back(line);
  }
  nlohmann::json settings = body;
  settings.erase("goals");
  return run(std::move(goals), settings, body.value("name", ""));
}

Result<std::string> Batches::run(std::vector<nlohmann::json> goals, const nlohmann::json& settings,
                                 const std::string& name) {
  int concurrency = 8;
  if (settings.contains("concurrency")) {
    if (!settings["concurrency"].is_number_integer() || settings["concurrency"].get<int>() < 1) {
      return fail(ErrorKind::usage, "'concurrency': a whole number from 1");
    }
    concurrency = settings["concurrency"].get<int>();
  }
  // A number or a text ("2h") each, checked as `ralph batch`'s flags are.
  const auto text_of = [&](const char* key) {
    if (!settings.contains(key)) {
      return std::string();
    }
    const nlohmann::json& value = settings[key];
    return value.is_string() ? value.get<std::string>() : value.dump();
  };
  TRY_ASSIGN(const BudgetSettings limits, app::batch_limits({.tokens = text_of("token_budget"),
                                                             .cost = text_of("cost_budget"),
                                                             .time = text_of("time_budget"),
                                                             .tokens_name = "'token_budget'",
                                                             .cost_name = "'cost_budget'",
                                                             .time_name = "'time_budget'"}));
  const fs::path folder = m_request.workspace / ".ralph" / "serve" / "batches";
  std::error_code error;
  fs::create_directories(folder, error);
  const std::string stem = name.empty() ? "serve-" + new_session_id() : name;
  const fs::path file = folder / (stem + ".jsonl");
  {
    std::ofstream out(file, std::ios::trunc);
    for (const nlohmann::json& line : goals) {
      out << line.dump() << '\n';
    }
    if (!out) {
      return fail(ErrorKind::io, file.string() + ": cannot write the goals file");
    }
  }
  app::BatchRequest request;
  request.workspace = m_request.workspace;
  TRY_ASSIGN(request.config, app::batch_config(m_request.config, m_request.workspace));
  auto read = app::read_goals_file(file, request.config);
  if (!read) {
    return tl::unexpected(read.error());
  }
  std::vector<std::string> problems = read->problems;
  for (std::string& problem : app::goal_price_problems(read->goals, file, limits)) {
    problems.push_back(std::move(problem));
  }
  if (!problems.empty()) {
    fs::remove(file, error);
    std::string message = problems.front();
    // "FILE:LINE: what" becomes "goal LINE: what": the file is the server's own.
    if (const auto at = message.find(file.string()); at == 0) {
      message = "goal" + message.substr(file.string().size()).replace(0, 1, " ");
    }
    return fail(ErrorKind::usage, message);
  }
  request.goals = std::move(read->goals);
  request.goals_file = file;
  request.flags = m_request.flags;
  request.concurrency = concurrency;
  request.limits = limits;
  const std::string id = app::batch_id_of(file);
  auto hosted = std::make_shared<Hosted>();
  hosted->id = id;
  hosted->goals = std::move(goals);
  hosted->settings = settings;
  hosted->created_at = iso8601_utc(std::chrono::system_clock::now());
  {
    const std::lock_guard lock(m_mutex);
    if (m_hosted.count(id) && m_hosted[id]->state == "running") {
      return fail(ErrorKind::usage, "batch " + id + " is running here already");
    }
    if (auto old = m_hosted.find(id); old != m_hosted.end() && old->second->thread.joinable()) {
      old->second->thread.join();
    }
    m_hosted[id] = hosted;
  }
  Hosted* batch = hosted.get();
  hosted->thread = std::thread([this, batch, request = std::move(request)] {
    BusObserver observer(
        m_bus, batch->id,
        [this, batch](const std::string& session_id) {
          const std::lock_guard lock(m_mutex);
          m_session_batch[session_id] = batch->id;
        },
        [this, batch](const app::BatchProgress& progress) {
          {
            const std::lock_guard lock(batch->mutex);
            batch->progress = progress;
          }
          m_bus.publish({"batch:" + batch->id}, "progress",
                        nlohmann::json{{"batch", batch->id},
                                       {"finished", progress.finished.size()},
                                       {"running", progress.running.size()},
                                       {"goals", progress.goals},
                                       {"tokens", progress.spend.tokens},
                                       {"cost_usd", cost_or_null(progress.spend.cost_usd,
                                                                 progress.spend.cost_known)}}
                            .dump());
        });
    SystemClock clock;
    const auto end = app::run_batch(m_runtime, request, observer, clock, batch->cancel);
    std::string state = "finished";
    if (!end) {
      state = "failed";
      m_bus.publish({"batch:" + batch->id}, "warning",
                    nlohmann::json{{"batch", batch->id}, {"message", end.error().message}}.dump());
    } else if (end->interrupted || end->budget) {
      state = "stopped";
    }
    {
      const std::lock_guard lock(batch->mutex);
      batch->state = state;
    }
    m_bus.publish({"batch:" + batch->id, "batches"}, "batch_state",
                  nlohmann::json{{"batch", batch->id}, {"state", state}}.dump());
  });
  m_bus.publish({"batches"}, "batch_state",
                nlohmann::json{{"batch", id}, {"state", "running"}}.dump());
  return id;
}

bool Batches::stop(const std::string& id) {
  const std::lock_guard lock(m_mutex);
  const auto found = m_hosted.find(id);
  if (found == m_hosted.end()) {
    return false;
  }
  found->second->cancel.cancel();
  return true;
}

Result<std::string> Batches::rerun_failed(const std::string& id) {
  if (!m_store) {
    return fail(ErrorKind::internal, "no store");
  }
  TRY_ASSIGN(const nlohmann::json batch, show(id, *m_store));
  if (batch.is_null()) {
    return fail(ErrorKind::usage, "no batch " + id);
  }
  std::map<std::string, nlohmann::json> lines;
  {
    const std::lock_guard lock(m_mutex);
    if (const auto found = m_hosted.find(id); found != m_hosted.end()) {
      for (const nlohmann::json& line : found->second->goals) {
        lines[line.value("id", "")] = line;
      }
    }
  }
  if (batch["source"] == "queue" && m_queue) {
    TRY_ASSIGN(const auto queued, m_queue->goals(id));
    for (const store::QueuedGoal& g : queued) {
      lines[g.id] = nlohmann::json::parse(g.spec_json, nullptr, false);
    }
  }
  std::vector<nlohmann::json> again;
  for (const nlohmann::json& goal : batch["goal_list"]) {
    const std::string goal_id = goal.value("id", "");
    if (goal.value("state", "") == "done") {
      continue;
    }
    if (const auto found = lines.find(goal_id); found != lines.end() && found->second.is_object()) {
      again.push_back(found->second);
    } else if (!goal.value("goal", "").empty()) {
      again.push_back({{"id", goal_id}, {"goal", goal.value("goal", "")}});
    }
  }
  if (again.empty()) {
    return fail(ErrorKind::usage, "every goal of batch " + id + " completed: nothing to re-run");
  }
  nlohmann::json settings = nlohmann::json::object();
  {
    const std::lock_guard lock(m_mutex);
    if (const auto found = m_hosted.find(id); found != m_hosted.end()) {
      settings = found->second->settings;
    }
  }
  return run(std::move(again), settings, "");
}

nlohmann::json Batches::candidates_of(const store::SessionRecord& record) {
  nlohmann::json candidates = nlohmann::json::array();
  if (record.session.kind != store::SessionKind::best_of || !m_store) {
    return candidates;
  }
  auto rows = m_store->list_sessions();
  if (!rows) {
    return candidates;
  }
  std::vector<store::SessionRow> children;
  for (store::SessionRow& row : *rows) {
    if (row.parent_id == record.session.id) {
      children.push_back(std::move(row));
    }
  }
  std::sort(children.begin(), children.end(),
            [](const auto& a, const auto& b) { return a.created_at < b.created_at; });
  int attempt = 0;
  for (const store::SessionRow& row : children) {
    ++attempt;
    candidates.push_back({{"attempt", attempt},
                          {"session_id", row.id},
                          {"status", to_string(row.status)},
                          {"verified", row.verified},
                          {"iterations", row.iterations},
                          {"tokens", row.input_tokens + row.output_tokens},
                          {"cost_usd", cost_or_null(row.cost_usd, row.cost_known)},
                          {"answer", row.answer},
                          {"winner", record.session.best_iteration == attempt}});
  }
  return candidates;
}

} // namespace ralph::server
