#include "server/access.h"

#include "ralph/core/text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <stdexcept>

namespace ralph::server {
namespace {

// "host:port", "[::1]:port" or "host" into the host (lower case) and the port (-1 when none).
std::pair<std::string, int> split_host(const std::string& text) {
  std::string host = text;
  int port = -1;
  if (!host.empty() && host.front() == '[') {
    const auto close = host.find(']');
    if (close == std::string::npos) {
      return {"", -1};
    }
    const std::string rest = host.substr(close + 1);
    host = host.substr(0, close + 1);
    if (rest.size() > 1 && rest.front() == ':') {
      port = std::atoi(rest.c_str() + 1);
    }
  } else if (const auto colon = host.rfind(':'); colon != std::string::npos) {
    port = std::atoi(host.c_str() + colon + 1);
    host = host.substr(0, colon);
  }
  return {to_lower_ascii(host), port};
}

// Compares without leaking where the first difference is.
bool same_secret(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string cookie_value(const std::string& header, const std::string& name) {
  std::size_t at = 0;
  while (at < header.size()) {
    const std::size_t end = std::min(header.find(';', at), header.size());
    std::string part = header.substr(at, end - at);
    const auto start = part.find_first_not_of(' ');
    part = start == std::string::npos ? "" : part.substr(start);
    if (part.compare(0, name.size() + 1, name + "=") == 0) {
      return part.substr(name.size() + 1);
    }
    at = end + 1;
  }
  return {};
}

} // namespace

std::string random_token() {
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    throw std::runtime_error("no random bytes from OpenSSL");
  }
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char byte : bytes) {
    out += k_hex[byte >> 4];
    out += k_hex[byte & 15];
  }
  return out;
}

bool is_loopback(const std::string& address) {
  const std::string host = to_lower_ascii(address);
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

HttpResponse error_response(int status, const std::string& code, const std::string& message,
                            const std::string& field) {
  nlohmann::json error = {{"code", code}, {"message", message}};
  if (!field.empty()) {
    error["field"] = field;
  }
  HttpResponse response;
  response.status = status;
  response.body = nlohmann::json{{"error", error}}.dump();
  return response;
}

Access::Access(std::string api_token, std::vector<std::string> hosts, int port)
    : m_api_token(std::move(api_token)), m_port(port) {
  for (const char* name : {"127.0.0.1", "localhost", "[::1]"}) {
    m_hosts.insert(name);
  }
  for (std::string& host : hosts) {
    if (host == "::1") {
      host = "[::1]";
    }
    if (!host.empty() && host != "0.0.0.0" && host != "::") {
      m_hosts.insert(to_lower_ascii(host));
    }
  }
}

std::string Access::new_login_code() {
  std::string code = random_token();
  const std::lock_guard lock(m_mutex);
  m_codes.insert(code);
  return code;
}

std::optional<std::string> Access::login(const std::string& code) {
  const std::lock_guard lock(m_mutex);
  bool ok = !code.empty() && same_secret(code, m_api_token);
  if (!ok) {
    const auto found = m_codes.find(code);
    if (found != m_codes.end()) {
      m_codes.erase(found);
      ok = true;
    }
  }
  if (!ok) {
    return std::nullopt;
  }
  std::string cookie = random_token();
  m_cookies.insert(cookie);
  return cookie;
}

bool Access::host_allowed(const std::string& host_header) const {
  const auto [host, port] = split_host(host_header);
  return !host.empty() && m_hosts.count(host) > 0 && (port == -1 || port == m_port);
}

bool Access::origin_allowed(const std::string& origin) const {
  const std::string prefix = "http://";
  if (origin.compare(0, prefix.size(), prefix) != 0) {
    return false;
  }
  const auto [host, port] = split_host(origin.substr(prefix.size()));
  return m_hosts.count(host) > 0 && port == m_port;
}

bool Access::credential(const HttpRequest& request) const {
  const std::string authorization = request.header("authorization");
  const std::string bearer = "Bearer ";
  if (authorization.compare(0, bearer.size(), bearer) == 0 &&
      same_secret(authorization.substr(bearer.size()), m_api_token)) {
    return true;
  }
  const std::string cookie = cookie_value(request.header("cookie"), k_cookie);
  if (cookie.empty()) {
    return false;
  }
  const std::lock_guard lock(m_mutex);
  return m_cookies.count(cookie) > 0;
}

std::optional<HttpResponse> Access::check(const HttpRequest& request, bool needs_credential) const {
  if (!host_allowed(request.header("host"))) {
    return error_response(403, "forbidden_host",
                          "this server does not answer to Host '" + request.header("host") + "'");
  }
  const std::string origin = request.header("origin");
  if (!origin.empty() && !origin_allowed(origin)) {
    return error_response(403, "forbidden_origin",
                          "requests from Origin '" + origin + "' are not accepted");
  }
  if (needs_credential && !credential(request)) {
    return error_response(401, "unauthorized",
                          "sign in with the link `ralph serve` printed, or send "
                          "Authorization: Bearer TOKEN");
  }
  return std::nullopt;
}

} // namespace ralph::server
