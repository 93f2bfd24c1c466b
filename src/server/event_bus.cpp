#include "server/event_bus.h"

#include <algorithm>

namespace ralph::server {

Subscription::Subscription(EventBus& bus, std::set<std::string> topics, std::size_t capacity)
    : m_bus(bus), m_topics(std::move(topics)), m_capacity(capacity) {}

Subscription::~Subscription() {
  m_bus.forget(this);
}

void Subscription::deliver(const std::shared_ptr<const BusEvent>& event) {
  {
    const std::lock_guard lock(m_mutex);
    if (m_overflowed || m_closed) {
      return;
    }
    if (m_queue.size() >= m_capacity) {
      m_overflowed = true;
      m_queue.clear();
    } else {
      m_queue.push_back(event);
    }
  }
  m_ready.notify_one();
}

void Subscription::close() {
  {
    const std::lock_guard lock(m_mutex);
    m_closed = true;
  }
  m_ready.notify_one();
}

Subscription::Batch Subscription::next(std::chrono::milliseconds timeout) {
  std::unique_lock lock(m_mutex);
  m_ready.wait_for(lock, timeout, [&] { return !m_queue.empty() || m_overflowed || m_closed; });
  Batch batch;
  batch.overflowed = m_overflowed;
  batch.closed = m_closed;
  batch.events.assign(m_queue.begin(), m_queue.end());
  m_queue.clear();
  return batch;
}

EventBus::EventBus(std::size_t keep, std::size_t reader_capacity)
    : m_keep(std::max<std::size_t>(keep, 1)), m_reader_capacity(reader_capacity) {}

EventBus::~EventBus() {
  close();
}

std::uint64_t EventBus::publish(std::vector<std::string> topics, std::string type,
                                std::string data) {
  const std::lock_guard lock(m_mutex);
  auto event = std::make_shared<BusEvent>();
  event->id = m_next_id++;
  event->topics = std::move(topics);
  event->type = std::move(type);
  event->data = std::move(data);
  event->published_us = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  std::shared_ptr<const BusEvent> shared = std::move(event);
  m_recent.push_back(shared);
  if (m_recent.size() > m_keep) {
    m_recent.pop_front();
  }
  // A reader of several of the event's topics gets it once.
  std::vector<Subscription*> readers;
  for (const std::string& topic : shared->topics) {
    const auto found = m_readers.find(topic);
    if (found != m_readers.end()) {
      readers.insert(readers.end(), found->second.begin(), found->second.end());
    }
  }
  if (shared->topics.size() > 1) {
    std::sort(readers.begin(), readers.end());
    readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
  }
  for (Subscription* reader : readers) {
    reader->deliver(shared);
  }
  return shared->id;
}

std::shared_ptr<Subscription> EventBus::subscribe(std::set<std::string> topics,
                                                  std::optional<std::uint64_t> last_id,
                                                  Replay& replay) {
  const std::lock_guard lock(m_mutex);
  std::shared_ptr<Subscription> reader(new Subscription(*this, topics, m_reader_capacity));
  if (m_closed) {
    reader->m_closed = true;
    return reader;
  }
  if (last_id) {
    const std::uint64_t oldest = m_recent.empty() ? m_next_id : m_recent.front()->id;
    // Ids are this server's: one from before a restart (or beyond the newest) is a gap too.
    if (*last_id + 1 < oldest || *last_id >= m_next_id) {
      replay.resync = true;
    } else {
      for (const auto& event : m_recent) {
        if (event->id <= *last_id) {
          continue;
        }
        const bool wanted = std::any_of(event->topics.begin(), event->topics.end(),
                                        [&](const std::string& t) { return topics.count(t) > 0; });
        if (wanted) {
          replay.events.push_back(event);
        }
      }
    }
  }
  for (const std::string& topic : topics) {
    m_readers[topic].insert(reader.get());
  }
  ++m_count;
  return reader;
}

void EventBus::forget(Subscription* subscription) {
  const std::lock_guard lock(m_mutex);
  for (const std::string& topic : subscription->m_topics) {
    const auto found = m_readers.find(topic);
    if (found != m_readers.end()) {
      found->second.erase(subscription);
      if (found->second.empty()) {
        m_readers.erase(found);
      }
    }
  }
  --m_count;
}

void EventBus::close() {
  const std::lock_guard lock(m_mutex);
  m_closed = true;
  for (const auto& [topic, readers] : m_readers) {
    for (Subscription* reader : readers) {
      reader->close();
    }
  }
}

std::uint64_t EventBus::last_id() const {
  const std::lock_guard lock(m_mutex);
  return m_next_id - 1;
}

std::size_t EventBus::subscribers() const {
  const std::lock_guard lock(m_mutex);
  return m_count;
}

} // namespace ralph::server
