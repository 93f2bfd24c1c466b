#pragma once

#include "server/event_bus.h"

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/server/serve.h"
#include "ralph/session/runtime.h"
#include "ralph/store/goal_queue.h"
#include "ralph/store/session_store.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace ralph::server {

// The batches the server shows: those run in its workspace (`ralph batch`, or started here, in
// .ralph/batch/ID/), and with a PostgreSQL store those of the goal queue; and those it runs
// itself. Thread-safe.
class Batches {
public:
  Batches(session::Runtime& runtime, const ServeRequest& request, store::GoalQueue* queue,
          EventBus& bus);
  ~Batches(); // stops the batches it runs and waits for them
  Batches(const Batches&) = delete;
  Batches& operator=(const Batches&) = delete;

  // The batch a session is a goal of; empty when none is known (yet: what the server read of
  // the batches so far).
  std::string batch_of(const std::string& session_id);
  // The sessions of a batch's goals, as its journals or the queue say now.
  Result<std::set<std::string>> sessions_of(const std::string& id);
  // Every batch, newest first (the Batch objects of docs/reference/api.md).
  Result<nlohmann::json> list();
  // One batch with its goals; null when there is none.
  Result<nlohmann::json> show(const std::string& id, store::SessionStore& store);
  // Runs the goals (goals-file lines) as a batch here; its id. `settings`: concurrency and
  // budgets as the request body had them.
  Result<std::string> start(const nlohmann::json& body);
  // Stops a batch this server runs; false when it runs none by that id.
  bool stop(const std::string& id);
  // A new batch of the goals of `id` that did not complete; its id.
  Result<std::string> rerun_failed(const std::string& id);
  // The attempts of a best-of-N session: the sessions whose parent it is.
  nlohmann::json candidates_of(const store::SessionRecord& record);
  void set_store(store::SessionStore* store) { m_store = store; }

private:
  struct Hosted;
  struct Folder; // what a batch's folder says
  Folder read_folder(const std::filesystem::path& dir);
  Result<std::string> run(std::vector<nlohmann::json> goals, const nlohmann::json& settings,
                          const std::string& name);

  session::Runtime& m_runtime;
  const ServeRequest& m_request;
  store::GoalQueue* m_queue;
  EventBus& m_bus;
  store::SessionStore* m_store = nullptr;
  std::mutex m_mutex;
  std::map<std::string, std::shared_ptr<Hosted>> m_hosted;
  std::map<std::string, std::string> m_session_batch; // learnt from folders and the queue
};

} // namespace ralph::server
