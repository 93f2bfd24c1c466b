#include "ralph/session/runtime.h"

#include "ralph/http/curl_transport.h"
#include "ralph/notify/dispatcher.h"
#include "ralph/session/mcp_servers.h"

#include <fmt/format.h>

#include <cstdio>

namespace ralph::session {

Runtime::Runtime(Environment env)
    : m_env(std::move(env)), m_redactor(m_env.redactor()),
      m_shared_mcp(std::make_unique<SharedMcpClients>()) {}

Runtime::~Runtime() {
  drain_notifications();
}

void Runtime::start_http() {
  std::call_once(m_http_started, [this] { m_curl = std::make_unique<http::CurlGlobal>(); });
}

void Runtime::on_notify_failure(std::function<void(const std::string& line)> warn) {
  const std::lock_guard lock(m_notify_mutex);
  m_notify_warn = std::move(warn);
}

notify::Dispatcher& Runtime::notifications() {
  const std::lock_guard lock(m_notify_mutex);
  if (!m_notifications) {
    start_http();
    // A failed delivery is never silent: with no one told, stderr says it.
    auto warn = m_notify_warn ? m_notify_warn : [](const std::string& line) {
      fmt::print(stderr, "ralph: warning: {}\n", line);
    };
    m_notifications = std::make_unique<notify::Dispatcher>(
        [this, warn = std::move(warn)](const std::string& line) { warn(m_redactor.redact(line)); });
  }
  return *m_notifications;
}

int Runtime::drain_notifications() {
  notify::Dispatcher* dispatcher = nullptr;
  {
    const std::lock_guard lock(m_notify_mutex);
    dispatcher = m_notifications.get();
  }
  return dispatcher == nullptr ? 0 : dispatcher->drain();
}

} // namespace ralph::session
