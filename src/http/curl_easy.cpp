#include "curl_easy.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <cstdlib>

namespace ralph::http {
namespace {

// C callbacks: nothing may throw out of them, so every body is wrapped and the exception is
// kept for the caller once libcurl is out of the way (CurlTransport rethrows it, TransferLoop
// reports it as the transfer's error).
size_t on_header(char* ptr, size_t size, size_t count, void* user) {
  auto& transfer = *static_cast<Transfer*>(user);
  const size_t length = size * count;
  try {
    transfer.last_activity = SteadyClock::now();
    const std::string_view line = trim(std::string_view(ptr, length));
    if (line.substr(0, 5) == "HTTP/") {
      // A new status line (after 1xx or a proxy CONNECT) starts a new header block.
      transfer.response.headers.clear();
      transfer.decided = false;
      return length;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return length;
    }
    std::string name = to_lower_ascii(trim(line.substr(0, colon)));
    transfer.response.headers.emplace_back(std::move(name), trim(line.substr(colon + 1)));
    return length;
  } catch (...) {
    transfer.exception = std::current_exception();
    return 0;
  }
}

size_t on_body(char* ptr, size_t size, size_t count, void* user) {
  auto& transfer = *static_cast<Transfer*>(user);
  const size_t length = size * count;
  try {
    transfer.last_activity = SteadyClock::now();
    if (!transfer.decided) {
      long status = 0;
      curl_easy_getinfo(transfer.easy, CURLINFO_RESPONSE_CODE, &status);
      transfer.streaming = *transfer.sink && status >= 200 && status < 300;
      transfer.decided = true;
    }
    if (!transfer.streaming) {
      transfer.response.body.append(ptr, length);
      return length;
    }
    if (!(*transfer.sink)(std::string_view(ptr, length))) {
      transfer.sink_stopped = true;
      return 0; // any count other than `length` makes libcurl abort the transfer
    }
    return length;
  } catch (...) {
    transfer.exception = std::current_exception();
    return 0;
  }
}

// Upload progress counts as activity for the idle timeout, so a slow large request body is not
// mistaken for a silent server.
int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t uploaded) {
  auto& transfer = *static_cast<Transfer*>(user);
  if (uploaded != transfer.uploaded) {
    transfer.uploaded = uploaded;
    transfer.last_activity = SteadyClock::now();
  }
  return 0;
}

// The URL as it may appear in messages: no credentials, no query (some APIs take keys there).
std::string redact_url(std::string_view url) {
  url = url.substr(0, url.find_first_of("?#"));
  const size_t scheme = url.find("://");
  const size_t host_start = scheme == std::string_view::npos ? 0 : scheme + 3;
  const size_t at = url.find('@', host_start);
  const size_t slash = url.find('/', host_start);
  if (at != std::string_view::npos && (slash == std::string_view::npos || at < slash)) {
    return std::string(url.substr(0, host_start)) + std::string(url.substr(at + 1));
  }
  return std::string(url);
}

// libcurl reads only the lower-case http_proxy for http:// URLs (a defence against "httpoxy"
// in CGI programs, which ralph is not); honour the upper-case form as other clients do.
// https_proxy / HTTPS_PROXY and no_proxy / NO_PROXY are read by libcurl itself.
void apply_upper_case_http_proxy(CURL* easy, std::string_view url) {
  if (url.substr(0, 7) != "http://" || std::getenv("http_proxy") != nullptr) {
    return;
  }
  const char* proxy = std::getenv("HTTP_PROXY");
  if (proxy != nullptr && *proxy != '\0') {
    curl_easy_setopt(easy, CURLOPT_PROXY, proxy);
  }
}

} // namespace

Result<SlistPtr> configure(CURL* easy, const Request& request, Transfer& transfer) {
  // curl_slist_append returns the list's head, which is the pointer already owned after the
  // first append: release before re-owning so the list is never freed under us.
  SlistPtr headers;
  const auto append = [&headers](const std::string& line) {
    curl_slist* head = curl_slist_append(headers.get(), line.c_str());
    if (head == nullptr) {
      return false;
    }
    (void)headers.release();
    headers.reset(head);
    return true;
  };
  for (const auto& [name, value] : request.headers) {
    if (!append(fmt::format("{}: {}", name, value))) {
      return fail(ErrorKind::internal, "out of memory building request headers");
    }
  }
  // Without this libcurl waits up to a second for "100 Continue" before sending large bodies.
  if (!append("Expect:")) {
    return fail(ErrorKind::internal, "out of memory building request headers");
  }

  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer.error_buffer);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers.get());
  if (request.method == "GET") {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  } else {
    if (request.method != "POST") {
      curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }
    if (request.method == "POST" || !request.body.empty()) {
      curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
    }
  }
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(request.connect_timeout.count()));
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(request.total_timeout.count()));
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &transfer);
  curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
  apply_upper_case_http_proxy(easy, request.url);
  return headers;
}

Error transport_error(ErrorKind kind, bool retryable, std::string message) {
  Error error;
  error.kind = kind;
  error.retryable = retryable;
  error.message = std::move(message);
  return error;
}

Error map_curl_error(CURLcode code, const char* detail, const std::string& where) {
  const std::string text = fmt::format("{}: {}{}{}", where, curl_easy_strerror(code),
                                       *detail != '\0' ? " - " : "", detail);
  switch (code) {
  case CURLE_OPERATION_TIMEDOUT:
    return transport_error(ErrorKind::timeout, true, text);
  case CURLE_URL_MALFORMAT:
  case CURLE_UNSUPPORTED_PROTOCOL:
    return transport_error(ErrorKind::config, false, text);
  case CURLE_PEER_FAILED_VERIFICATION:
  case CURLE_SSL_CERTPROBLEM:
  case CURLE_SSL_CACERT_BADFILE:
    return transport_error(ErrorKind::network, false, text);
  case CURLE_OUT_OF_MEMORY:
    return transport_error(ErrorKind::internal, false, text);
  case CURLE_COULDNT_CONNECT: {
    // Worth another try too (a server restarting), but a caller may know better: a local server
    // that refuses is most likely not running (RetryHooks::give_up).
    Error error = transport_error(ErrorKind::network, true, text);
    error.refused = true;
    return error;
  }
  default:
    // Reset, DNS, truncated body, TLS handshake: worth another try.
    return transport_error(ErrorKind::network, true, text);
  }
}

std::string describe(const Request& request) {
  return fmt::format("{} {}", request.method, redact_url(request.url));
}

Result<Response> finish(Transfer& transfer, CURLcode result, const std::string& where) {
  if (transfer.sink_stopped) {
    return fail(transport_error(ErrorKind::cancelled, false, where + ": stopped by the reader"));
  }
  if (result != CURLE_OK) {
    return fail(map_curl_error(result, transfer.error_buffer, where));
  }
  long status = 0;
  curl_easy_getinfo(transfer.easy, CURLINFO_RESPONSE_CODE, &status);
  transfer.response.status = static_cast<int>(status);
  return std::move(transfer.response);
}

} // namespace ralph::http
