#pragma once

#include "ralph/core/redactor.h"
#include "ralph/session/environment.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace ralph::http {
class CurlGlobal;
}
namespace ralph::notify {
class Dispatcher;
}

namespace ralph::session {

class SharedMcpClients;

// What the sessions of one process share: the environment they read (keys, configuration
// variables), the redactor made from it, libcurl's process-wide start and the thread that
// delivers notifications. Thread-safe; must outlive every session prepared with it. Its end
// waits for the notifications still under way, at most the longest `timeout` of their entries.
class Runtime {
public:
  explicit Runtime(Environment env = Environment::process());
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const Environment& environment() const { return m_env; }
  // Masks every secret of the environment: whatever a session writes or shows passes it.
  const Redactor& redactor() const { return m_redactor; }

  // The MCP servers declared shareable, one process each for every session of this runtime.
  SharedMcpClients& shared_mcp() { return *m_shared_mcp; }

  // Starts libcurl (and OpenSSL with it) the first time a session talks HTTP: it costs
  // milliseconds and megabytes that a scripted run never needs.
  void start_http();

  // Where notifications that could not be delivered are reported, one redacted line each
  // ("notify: webhook https://host/… (FILE:LINE) did not get completed of session …: HTTP 500");
  // by default stderr, as "ralph: warning: …". Set it before the first notification.
  void on_notify_failure(std::function<void(const std::string& line)> warn);
  // The process's notification queue, its thread started by the first notification.
  notify::Dispatcher& notifications();
  // Waits for the notifications under way (at most the longest `timeout` of their entries) and
  // reports those that did not happen; later ones are dropped. Returns how many did not happen.
  int drain_notifications();

private:
  Environment m_env;
  Redactor m_redactor;
  std::once_flag m_http_started;
  std::unique_ptr<http::CurlGlobal> m_curl;
  std::unique_ptr<SharedMcpClients> m_shared_mcp;
  std::mutex m_notify_mutex;
  std::function<void(const std::string&)> m_notify_warn;
  // Declared last: destroyed (and drained) first, while libcurl is still started.
  std::unique_ptr<notify::Dispatcher> m_notifications;
};

} // namespace ralph::session
