#pragma once

#include "ralph/core/redactor.h"
#include "ralph/session/environment.h"

#include <memory>
#include <mutex>

namespace ralph::http {
class CurlGlobal;
}

namespace ralph::session {

// What the sessions of one process share: the environment they read (keys, configuration
// variables), the redactor made from it, and libcurl's process-wide start. Thread-safe; must
// outlive every session prepared with it.
class Runtime {
public:
  explicit Runtime(Environment env = Environment::process());
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const Environment& environment() const { return m_env; }
  // Masks every secret of the environment: whatever a session writes or shows passes it.
  const Redactor& redactor() const { return m_redactor; }

  // Starts libcurl (and OpenSSL with it) the first time a session talks HTTP: it costs
  // milliseconds and megabytes that a scripted run never needs.
  void start_http();

private:
  Environment m_env;
  Redactor m_redactor;
  std::once_flag m_http_started;
  std::unique_ptr<http::CurlGlobal> m_curl;
};

} // namespace ralph::session
