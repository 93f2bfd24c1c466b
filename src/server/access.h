#pragma once

#include "server/http_server.h"

#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ralph::server {

// Who may use the server, checked on every request before any route: the Host a request names
// and the Origin a browser sends must be this server's (a page of another site, or a name that
// rebinds to 127.0.0.1, is refused), and the request must carry the API token (bearer) or a
// cookie that a login made. Thread-safe.
class Access {
public:
  // `hosts`: the names the server answers to (loopback names and the bind address are added);
  // `port`: the one it listens on (an Origin must name it).
  Access(std::string api_token, std::vector<std::string> hosts, int port);

  // A new one-time login code (the link printed at start).
  std::string new_login_code();
  // The cookie value for a login with `code` (a one-time code, used up now, or the API token);
  // nullopt when it is neither.
  std::optional<std::string> login(const std::string& code);

  // The refusal for a request that may not go on; nullopt when it may. `needs_credential` is
  // false for the login route and the health check.
  std::optional<HttpResponse> check(const HttpRequest& request, bool needs_credential) const;

  static constexpr const char* k_cookie = "ralph_session";

private:
  bool host_allowed(const std::string& host_header) const;
  bool origin_allowed(const std::string& origin) const;
  bool credential(const HttpRequest& request) const;

  std::string m_api_token;
  std::set<std::string> m_hosts;
  int m_port;
  mutable std::mutex m_mutex;
  std::set<std::string> m_codes;
  std::set<std::string> m_cookies;
};

// A random 256-bit secret as 64 hex digits (OpenSSL's generator).
std::string random_token();

// Whether `address` is a loopback address (127.0.0.0/8, ::1, localhost).
bool is_loopback(const std::string& address);

// The JSON error answer: {"error": {"code", "message", "field"?}}.
HttpResponse error_response(int status, const std::string& code, const std::string& message,
                            const std::string& field = {});

} // namespace ralph::server
