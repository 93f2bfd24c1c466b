#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ralph::server {

// One event of the live stream: its id (increasing from 1 in this server's life), the topics it
// belongs to ("sessions", "session:ID", "batch:ID", "workers"), its SSE event name, and its data
// (JSON text), and when it was published (microseconds since the Unix epoch), for a reader that
// measures how long its events take to reach it.
struct BusEvent {
  std::uint64_t id = 0;
  std::vector<std::string> topics;
  std::string type;
  std::string data;
  std::int64_t published_us = 0;
};

class EventBus;

// One reader's view of the bus (a browser tab's stream): the events of its topics, in order,
// from a bounded queue of its own, so that a slow reader never holds up whoever publishes. A
// reader that falls too far behind is `overflowed`: its stream ends, and its browser comes back
// with the last id it saw. Thread-safe.
class Subscription {
public:
  struct Batch {
    std::vector<std::shared_ptr<const BusEvent>> events;
    bool overflowed = false; // events were lost: end the stream
    bool closed = false;     // the bus is shutting down
  };
  // The events queued so far, waiting up to `timeout` for the first.
  Batch next(std::chrono::milliseconds timeout);
  ~Subscription();

private:
  friend class EventBus;
  Subscription(EventBus& bus, std::set<std::string> topics, std::size_t capacity);
  // With the bus's lock held.
  void deliver(const std::shared_ptr<const BusEvent>& event);
  void close();

  EventBus& m_bus;
  std::set<std::string> m_topics;
  std::size_t m_capacity;
  std::mutex m_mutex;
  std::condition_variable m_ready;
  std::deque<std::shared_ptr<const BusEvent>> m_queue;
  bool m_overflowed = false;
  bool m_closed = false;
};

// What subscribe() found behind the reader's last event: the events it missed, or `resync` when
// they are older than what the bus keeps (the reader fetches its data again).
struct Replay {
  std::vector<std::shared_ptr<const BusEvent>> events;
  bool resync = false;
};

// The server's fan-out of live events: publishers (sessions' event sinks, the store's change
// feed) hand events in; each subscription gets those of its topics. The newest `keep` events are
// kept for readers that reconnect. Thread-safe; must outlive its subscriptions.
class EventBus {
public:
  explicit EventBus(std::size_t keep = 20000, std::size_t reader_capacity = 20000);
  ~EventBus();
  EventBus(const EventBus&) = delete;
  EventBus& operator=(const EventBus&) = delete;

  std::uint64_t publish(std::vector<std::string> topics, std::string type, std::string data);

  // A reader of `topics`; with `last_id`, what it missed since is in `replay` (and nothing is
  // lost between the replay and the live events).
  std::shared_ptr<Subscription> subscribe(std::set<std::string> topics,
                                          std::optional<std::uint64_t> last_id, Replay& replay);
  // Ends every subscription's stream (shutdown).
  void close();
  std::uint64_t last_id() const;
  std::size_t subscribers() const;

private:
  friend class Subscription;
  void forget(Subscription* subscription);

  std::size_t m_keep;
  std::size_t m_reader_capacity;
  mutable std::mutex m_mutex;
  std::deque<std::shared_ptr<const BusEvent>> m_recent;
  std::uint64_t m_next_id = 1;
  // Readers by topic, so a publish touches only the readers of its topics.
  std::map<std::string, std::set<Subscription*>, std::less<>> m_readers;
  std::size_t m_count = 0;
  bool m_closed = false;
};

} // namespace ralph::server
