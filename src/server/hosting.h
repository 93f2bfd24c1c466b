#pragma once

#include "server/batches.h"
#include "server/server_parts.h"
#include "server/store_watch.h"
#include "server/summaries.h"

#include "ralph/store/goal_queue.h"
#include "ralph/store/session_store.h"

#include <memory>
#include <optional>
#include <string>

namespace ralph::server {

// What a server that runs sessions holds besides its HTTP listener: the store, the sessions it
// hosts on an engine, the batches, the live event bus and the store's change feed, put together
// in the order they depend on one another (and taken apart in reverse). `ralph serve` and
// `ralph mcp serve` both hold one.
class Hosting {
public:
  // Opens the store named by `request.config`; `port` is the one Host and Origin checks expect.
  // `watch_store`: follow what other processes write to the store (the change feed, for live
  // streams); a server without streams (`ralph mcp serve`) goes without, and so needs no inotify
  // instance or LISTEN connection of its own.
  static Result<std::unique_ptr<Hosting>> open(session::Runtime& runtime,
                                               const ServeRequest& request,
                                               const std::string& token, int port,
                                               ServeObserver& observer, bool watch_store = true);
  ~Hosting(); // the sessions and batches it runs end interrupted (resumable) first
  Hosting(const Hosting&) = delete;
  Hosting& operator=(const Hosting&) = delete;

  ServerParts& parts() { return *m_parts; }
  Access& access() { return *m_access; }

private:
  Hosting() = default;

  std::unique_ptr<store::SessionStore> m_store;
  std::unique_ptr<store::GoalQueue> m_queue;
  std::unique_ptr<Access> m_access;
  std::unique_ptr<EventBus> m_bus;
  std::unique_ptr<Summaries> m_summaries;
  std::unique_ptr<SessionHost> m_host;
  std::unique_ptr<Batches> m_batches;
  std::unique_ptr<Idempotency> m_idempotency;
  std::unique_ptr<ServerParts> m_parts;
  std::unique_ptr<StoreWatch> m_watch;
};

} // namespace ralph::server
