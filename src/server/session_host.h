#pragma once

#include "server/event_bus.h"

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/engine/engine.h"
#include "ralph/session/session.h"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ralph::server {

// The sessions this server runs, as fibers of one engine, all recording into one store. Each
// session's events go to the bus (topic "session:ID") and to its events file; `changed` hears
// of each step that changes what a list shows of it. Thread-safe.
class SessionHost {
public:
  using Changed = std::function<void(const std::string& session_id)>;

  SessionHost(session::Runtime& runtime, store::SessionStore& store, EventBus& bus,
              std::filesystem::path events_dir, Changed changed);
  ~SessionHost(); // stops every session (they end interrupted) and waits for them
  SessionHost(const SessionHost&) = delete;
  SessionHost& operator=(const SessionHost&) = delete;

  // Prepares the session on the engine and, when that worked, runs it there; returns its id
  // once it started. A configuration mistake (a missing key, a bad verifier) is the error, and
  // nothing is recorded.
  Result<std::string> start(session::SessionRequest request);
  // Cancels a session running here (it ends interrupted); false when none runs by that id.
  bool stop(const std::string& id);
  bool hosted(const std::string& id) const;
  std::vector<std::string> running() const;
  // Where a session's events are written (sessions this server ran).
  std::filesystem::path events_file(const std::string& id) const;
  // Cancels every session (shutdown).
  void stop_all();

private:
  session::Runtime& m_runtime;
  store::SessionStore& m_store;
  EventBus& m_bus;
  std::filesystem::path m_events_dir;
  Changed m_changed;
  CancelToken m_all;
  mutable std::mutex m_mutex;
  std::map<std::string, CancelToken> m_running;
  engine::Engine m_engine; // last: its tasks use everything above
};

} // namespace ralph::server
