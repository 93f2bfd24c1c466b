#include "server/summaries.h"

#include "server/batches.h"
#include "server/session_host.h"
#include "server/views.h"

#include "ralph/session/settings.h"
#include "ralph/store/session_owner.h"

namespace ralph::server {

Summaries::Summaries(store::SessionStore& store, EventBus& bus)
    : m_store(store), m_bus(bus), m_thread([this] { run(); }) {}

Summaries::~Summaries() {
  stop();
}

void Summaries::stop() {
  {
    const std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_one();
  if (m_thread.joinable()) {
    m_thread.join();
  }
}

void Summaries::changed(const std::string& session_id) {
  {
    const std::lock_guard lock(m_mutex);
    m_pending.insert(session_id);
  }
  m_wake.notify_one();
}

void Summaries::run() {
  std::unique_lock lock(m_mutex);
  while (true) {
    m_wake.wait(lock, [&] { return m_stopping || !m_pending.empty(); });
    if (m_stopping) {
      return;
    }
    const std::set<std::string> ids = std::move(m_pending);
    m_pending.clear();
    lock.unlock();
    for (const std::string& id : ids) {
      auto row = m_store.find_session(id);
      if (!row || !*row) {
        continue;
      }
      const bool hosted = m_host && m_host->hosted(id);
      const SessionFacts facts{.running = hosted || store::session_owned(**row),
                               .hosted = hosted,
                               .batch = m_batches ? m_batches->batch_of(id) : std::string()};
      auto config = session::recorded_settings(**row, {});
      const nlohmann::json data = {
          {"session",
           session_summary(**row, facts,
                           config ? std::optional<Config>(std::move(*config)) : std::nullopt)}};
      m_bus.publish({"sessions", "session:" + id}, "session",
                    data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    lock.lock();
  }
}

} // namespace ralph::server
