#include "server/hosting.h"

#include "ralph/core/try.h"
#include "ralph/session/record.h"
#include "ralph/session/settings.h"
#include "ralph/store/open_session_store.h"

namespace ralph::server {

Result<std::unique_ptr<Hosting>> Hosting::open(session::Runtime& runtime,
                                               const ServeRequest& request,
                                               const std::string& token, int port,
                                               ServeObserver& observer, bool watch_store) {
  std::unique_ptr<Hosting> hosting(new Hosting());
  Hosting& h = *hosting;
  const std::string location = session::store_location(request.config, request.workspace);
  const bool postgres = store::is_server_url(location);
  TRY_ASSIGN(h.m_store, session::open_store(request.config, request.workspace));
  if (postgres) {
    TRY_ASSIGN(h.m_queue, store::GoalQueue::open(location, request.config.store.retry));
  }
  std::vector<std::string> hosts = request.allow_hosts;
  hosts.push_back(request.bind);
  h.m_access = std::make_unique<Access>(token, hosts, port);
  h.m_bus = std::make_unique<EventBus>();
  h.m_summaries = std::make_unique<Summaries>(*h.m_store, *h.m_bus);
  Summaries& summaries = *h.m_summaries;
  h.m_host = std::make_unique<SessionHost>(
      runtime, *h.m_store, *h.m_bus, request.workspace / ".ralph" / "serve" / "events",
      [&summaries](const std::string& id) { summaries.changed(id); });
  summaries.set_host(h.m_host.get());
  h.m_batches = std::make_unique<Batches>(runtime, request, h.m_queue.get(), *h.m_bus);
  h.m_batches->set_store(h.m_store.get());
  summaries.set_batches(h.m_batches.get());
  h.m_idempotency = std::make_unique<Idempotency>();
  h.m_parts.reset(new ServerParts{.runtime = runtime,
                                  .request = request,
                                  .store = *h.m_store,
                                  .postgres = postgres,
                                  .bus = *h.m_bus,
                                  .access = *h.m_access,
                                  .host = *h.m_host,
                                  .batches = *h.m_batches,
                                  .idempotency = *h.m_idempotency,
                                  .queue = h.m_queue.get()});
  if (!watch_store) {
    return hosting;
  }
  TRY_ASSIGN(auto feed, store::ChangeFeed::open(location, request.config.store.retry));
  h.m_watch =
      std::make_unique<StoreWatch>(std::move(feed), summaries, *h.m_bus, h.m_queue.get(), observer);
  return hosting;
}

Hosting::~Hosting() {
  // Sessions end interrupted (recorded, resumable) before anything they report to goes.
  if (m_host) {
    m_host->stop_all();
  }
  if (m_bus) {
    m_bus->close();
  }
  m_watch.reset();
  m_parts.reset();
  m_idempotency.reset();
  // The summaries' thread reads the host and the batches, and the host's sessions, ending,
  // still note changes: it stops before both go.
  if (m_summaries) {
    m_summaries->stop();
  }
  m_batches.reset();
  m_host.reset();
  m_summaries.reset();
  m_bus.reset();
  m_access.reset();
  m_queue.reset();
  m_store.reset();
}

} // namespace ralph::server
