#pragma once

#include "server/event_bus.h"

#include "ralph/store/session_store.h"

#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace ralph::server {

class SessionHost;
class Batches;

// Sends a session's summary (its row as the list shows it) to the "sessions" and "session:ID"
// topics after it changes: changes are noted from any thread and sent from one of its own, each
// session once however many changes came in meanwhile, so a session's steps never wait for the
// store's read.
class Summaries {
public:
  Summaries(store::SessionStore& store, EventBus& bus);
  ~Summaries();
  Summaries(const Summaries&) = delete;
  Summaries& operator=(const Summaries&) = delete;

  void set_host(const SessionHost* host) { m_host = host; }
  void set_batches(Batches* batches) { m_batches = batches; }
  void changed(const std::string& session_id);
  // Sends no more (changes noted after are dropped); returns once its thread is done. The
  // destructor stops it too; a server stops it before what the thread reads (the host, the
  // batches) goes.
  void stop();

private:
  void run();

  store::SessionStore& m_store;
  EventBus& m_bus;
  const SessionHost* m_host = nullptr;
  Batches* m_batches = nullptr;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::set<std::string> m_pending;
  bool m_stopping = false;
  std::thread m_thread; // last: it uses everything above
};

} // namespace ralph::server
