#include "server/session_host.h"

#include "ralph/core/event_json.h"
#include "ralph/core/ids.h"
#include "ralph/core/try.h"
#include "ralph/tools/workspace_changes.h"

#include <nlohmann/json.hpp>

#include <future>

namespace ralph::server {
namespace {

// Keeps the workspace of a session in a git repository as a commit at each attempt's start and
// end (refs/ralph/snapshots/SESSION/N-start, N-end), for the diff of each attempt.
class Snapshots {
public:
  Snapshots(tools::ProcessRunner& runner, std::filesystem::path workspace, std::string id,
            const CancelToken& cancel)
      : m_runner(runner), m_workspace(std::move(workspace)), m_id(std::move(id)), m_cancel(cancel) {
    auto inside = m_runner.run(
        {.argv = {"git", "-C", m_workspace.string(), "rev-parse", "--is-inside-work-tree"},
         .timeout = std::chrono::seconds(30)},
        m_cancel);
    m_git = inside && inside->exit_code == 0 && inside->output.rfind("true", 0) == 0;
  }

  // A warning when the snapshot could not be made; empty otherwise.
  std::string take(int iteration, const char* when) {
    if (!m_git || iteration <= 0) {
      return {};
    }
    const std::string name = std::to_string(iteration) + "-" + when;
    auto made =
        tools::snapshot_worktree(m_runner, m_workspace, "refs/ralph/snapshots/" + m_id + "/" + name,
                                 "ralph: session " + m_id + ", attempt " + name, m_cancel);
    return made ? std::string() : "the workspace's snapshot " + name + ": " + made.error().message;
  }

private:
  tools::ProcessRunner& m_runner;
  std::filesystem::path m_workspace;
  std::string m_id;
  CancelToken m_cancel;
  bool m_git = false;
};

// A hosted session's events: each on the bus, and what changes its summary told.
class BusSink final : public EventSink {
public:
  BusSink(EventBus& bus, std::string id, const SessionHost::Changed& changed, Snapshots& snapshots)
      : m_bus(bus), m_id(std::move(id)), m_topic("session:" + m_id), m_changed(changed),
        m_snapshots(snapshots) {}

  void on_event(const Event& event) override {
    nlohmann::json data = event_to_json(event);
    const std::string type = data.value("type", std::string("event"));
    if (type == "attempt_started") {
      note(m_snapshots.take(event.iteration, "start"));
    }
    data["session"] = m_id;
    m_bus.publish({m_topic}, type,
                  data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (type == "attempt_finished") {
      note(m_snapshots.take(event.iteration, "end"));
    }
    if (type == "attempt_started" || type == "attempt_finished" || type == "verdict" ||
        type == "feedback" || type == "status" || type == "model_finished") {
      m_changed(m_id);
    }
  }

private:
  void note(const std::string& warning) {
    if (!warning.empty()) {
      m_bus.publish({m_topic}, "warning",
                    nlohmann::json{{"type", "warning"}, {"session", m_id}, {"text", warning}}.dump(
                        -1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
  }

  EventBus& m_bus;
  std::string m_id;
  std::string m_topic;
  const SessionHost::Changed& m_changed;
  Snapshots& m_snapshots;
};

} // namespace

SessionHost::SessionHost(session::Runtime& runtime, store::SessionStore& store, EventBus& bus,
                         std::filesystem::path events_dir, Changed changed)
    : m_runtime(runtime), m_store(store), m_bus(bus), m_events_dir(std::move(events_dir)),
      m_changed(std::move(changed)) {}

SessionHost::~SessionHost() {
  stop_all();
  m_engine.wait();
}

std::filesystem::path SessionHost::events_file(const std::string& id) const {
  return m_events_dir / (id + ".ndjson");
}

Result<std::string> SessionHost::start(session::SessionRequest request) {
  if (request.session_id.empty()) {
    request.session_id = request.resume ? request.resume->session.id : new_session_id();
  }
  const std::string id = request.session_id;
  if (request.outputs.events_file.empty()) {
    request.outputs.events_file = events_file(id);
    request.outputs.append_events = true; // a resumed session's events go on in the same file
  }
  const CancelToken cancel = m_all.child();
  {
    const std::lock_guard lock(m_mutex);
    if (!m_running.emplace(id, cancel).second) {
      return fail(ErrorKind::usage, "session " + id + " is running here already");
    }
  }
  auto prepared = std::make_shared<std::promise<Result<void>>>();
  std::future<Result<void>> ready = prepared->get_future();
  m_engine.spawn([this, id, cancel, prepared,
                  request = std::move(request)](engine::Io& io) mutable {
    const std::filesystem::path workspace = request.workspace;
    auto session = session::Session::prepare(m_runtime, std::move(request),
                                             {.io = &io, .store = &m_store}, cancel);
    if (!session) {
      {
        const std::lock_guard lock(m_mutex);
        m_running.erase(id);
      }
      prepared->set_value(tl::unexpected(session.error()));
      return;
    }
    prepared->set_value({});
    Snapshots snapshots(io.runner(), workspace, id, cancel);
    BusSink sink(m_bus, id, m_changed, snapshots);
    const auto report = (*session)->run(sink);
    if (!report) {
      m_bus.publish({"session:" + id}, "error",
                    nlohmann::json{{"session", id}, {"message", report.error().message}}.dump());
    }
    {
      const std::lock_guard lock(m_mutex);
      m_running.erase(id);
    }
    m_changed(id);
  });
  TRY(ready.get());
  m_changed(id);
  return id;
}

bool SessionHost::stop(const std::string& id) {
  const std::lock_guard lock(m_mutex);
  const auto found = m_running.find(id);
  if (found == m_running.end()) {
    return false;
  }
  found->second.cancel();
  return true;
}

bool SessionHost::hosted(const std::string& id) const {
  const std::lock_guard lock(m_mutex);
  return m_running.count(id) > 0;
}

std::vector<std::string> SessionHost::running() const {
  const std::lock_guard lock(m_mutex);
  std::vector<std::string> ids;
  for (const auto& [id, token] : m_running) {
    ids.push_back(id);
  }
  return ids;
}

void SessionHost::stop_all() {
  m_all.cancel();
}

} // namespace ralph::server
