#pragma once

#include "server/event_bus.h"
#include "server/summaries.h"

#include "ralph/server/serve.h"
#include "ralph/store/change_feed.h"
#include "ralph/store/goal_queue.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace ralph::server {

// What other processes write to the store reaches the live streams: a session's change its
// summary, a queue batch's its counts, the workers' their view, a gap (`resync`) a resync event
// on every list. The feed waits on the database's own notifications (PostgreSQL LISTEN) or on the
// file (SQLite, inotify), never reading the store in a loop. A fault is told once to `observer`
// and the feed tries again. Changes are taken at most five times a second: under a busy store a
// feed would wake for every write, and each wake costs a read (SQLite: every session's time).
class StoreWatch {
public:
  StoreWatch(std::unique_ptr<store::ChangeFeed> feed, Summaries& summaries, EventBus& bus,
             store::GoalQueue* queue, ServeObserver& observer);
  ~StoreWatch();
  StoreWatch(const StoreWatch&) = delete;
  StoreWatch& operator=(const StoreWatch&) = delete;

private:
  void run();
  void publish_workers();
  void publish_batch(const std::string& id);

  std::unique_ptr<store::ChangeFeed> m_feed;
  Summaries& m_summaries;
  EventBus& m_bus;
  store::GoalQueue* m_queue;
  ServeObserver& m_observer;
  std::mutex m_mutex;
  std::condition_variable m_stop;
  bool m_stopping = false;
  std::thread m_thread; // last: it uses everything above
};

// The body of GET /api/v1/workers: the workers holding goals and the queue's batches (both empty
// without a queue).
Result<nlohmann::json> workers_json(store::GoalQueue* queue);

// A queue batch's counts as the API shows a batch.
nlohmann::json queue_batch_json(const store::QueueStatus& status);

} // namespace ralph::server
