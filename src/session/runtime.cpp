#include "ralph/session/runtime.h"

#include "ralph/http/curl_transport.h"

namespace ralph::session {

Runtime::Runtime(Environment env) : m_env(std::move(env)), m_redactor(m_env.redactor()) {}

Runtime::~Runtime() = default;

void Runtime::start_http() {
  std::call_once(m_http_started, [this] { m_curl = std::make_unique<http::CurlGlobal>(); });
}

} // namespace ralph::session
