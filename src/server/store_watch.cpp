#include "server/store_watch.h"

#include "ralph/core/try.h"

namespace ralph::server {

nlohmann::json queue_batch_json(const store::QueueStatus& status) {
  const bool open = status.queued + status.running > 0;
  return {{"id", status.batch},
          {"source", "queue"},
          {"hosted", false},
          {"state", open ? "running" : "finished"},
          {"goals", status.goals()},
          {"queued", status.queued},
          {"running", status.running},
          {"stale", status.stale},
          {"done", status.done},
          {"failed", status.failed},
          {"verified", status.verified},
          {"tokens", status.tokens},
          {"cost_usd", status.cost_known ? nlohmann::json(status.cost_usd) : nlohmann::json()},
          {"cost_budget", nullptr},
          {"created_at", status.created_at}};
}

Result<nlohmann::json> workers_json(store::GoalQueue* queue) {
  nlohmann::json workers = nlohmann::json::array();
  nlohmann::json batches = nlohmann::json::array();
  if (queue) {
    TRY_ASSIGN(const auto held, queue->workers());
    for (const store::WorkerStatus& worker : held) {
      nlohmann::json goals = nlohmann::json::array();
      for (const store::HeldGoal& goal : worker.goals) {
        goals.push_back({{"batch", goal.batch},
                         {"id", goal.id},
                         {"lease_until", goal.lease_until},
                         {"stale", goal.stale}});
      }
      workers.push_back(
          {{"name", worker.name},
           {"goals", std::move(goals)},
           {"stale", worker.stale()},
           {"heartbeat_age_ms", worker.heartbeat_age_ms ? nlohmann::json(*worker.heartbeat_age_ms)
                                                        : nlohmann::json(nullptr)}});
    }
    TRY_ASSIGN(const auto statuses, queue->batches());
    for (const store::QueueStatus& status : statuses) {
      batches.push_back(queue_batch_json(status));
    }
  }
  return nlohmann::json{{"workers", std::move(workers)}, {"queue", std::move(batches)}};
}

StoreWatch::StoreWatch(std::unique_ptr<store::ChangeFeed> feed, Summaries& summaries, EventBus& bus,
                       store::GoalQueue* queue, ServeObserver& observer)
    : m_feed(std::move(feed)), m_summaries(summaries), m_bus(bus), m_queue(queue),
      m_observer(observer), m_thread([this] { run(); }) {}

StoreWatch::~StoreWatch() {
  {
    const std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_stop.notify_one();
  m_feed->wake();
  m_thread.join();
}

void StoreWatch::publish_workers() {
  auto body = workers_json(m_queue);
  if (body) {
    m_bus.publish({"workers"}, "workers",
                  body->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
}

void StoreWatch::publish_batch(const std::string& id) {
  if (!m_queue) {
    return;
  }
  auto status = m_queue->status(id);
  if (status && *status) {
    m_bus.publish({"batch:" + id, "batches"}, "batch",
                  nlohmann::json{{"batch", queue_batch_json(**status)}}.dump(
                      -1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
}

void StoreWatch::run() {
  constexpr std::chrono::milliseconds k_gather{200};
  std::string last_error;
  while (true) {
    {
      // What comes meanwhile gathers in the feed, to be taken in one go.
      std::unique_lock lock(m_mutex);
      if (m_stop.wait_for(lock, k_gather, [&] { return m_stopping; })) {
        return;
      }
    }
    auto changes = m_feed->wait(std::chrono::seconds(30));
    if (!changes) {
      // Told once per fault, not once per retry.
      if (changes.error().message != last_error) {
        last_error = changes.error().message;
        m_observer.warning("the store's change feed: " + last_error + " (trying again)");
      }
      continue;
    }
    if (!last_error.empty()) {
      last_error.clear();
      m_observer.warning("the store's change feed is back");
    }
    bool workers = false;
    for (const store::StoreChange& change : *changes) {
      switch (change.kind) {
      case store::StoreChange::Kind::session:
        m_summaries.changed(change.id);
        break;
      case store::StoreChange::Kind::batch:
        publish_batch(change.id);
        workers = true; // a claim or a finish moves a worker's goals too
        break;
      case store::StoreChange::Kind::workers:
        workers = true;
        break;
      case store::StoreChange::Kind::resync:
        m_bus.publish({"sessions", "batches", "workers"}, "resync", "{}");
        workers = true;
        break;
      }
    }
    if (workers && m_queue) {
      publish_workers();
    }
  }
}

} // namespace ralph::server
