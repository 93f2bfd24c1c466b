#pragma once

#include "ralph/http/transport.h"

#include <memory>

namespace ralph::http {

// The real Transport: libcurl's multi interface driving one reusable easy handle, so
// consecutive requests to the same host reuse the connection (keep-alive). The handles are made
// by the first send(), so building a transport that is never used costs nothing.
//
// - The CancelToken is polled at least every 50 ms; a cancel aborts the transfer and returns
//   ErrorKind::cancelled. A sink returning false does the same.
// - Connect, idle (no byte for Request::idle_timeout) and total timeouts => ErrorKind::timeout;
//   refused, reset, truncated bodies => ErrorKind::network. Both are marked retryable.
// - Proxies come from http_proxy / https_proxy / HTTPS_PROXY / HTTP_PROXY / no_proxy.
// - gzip and deflate responses are decoded.
//
// curl_global_init must have run before the first CurlTransport is built: `main` calls it
// (see CurlGlobal below); tests may rely on curl_easy_init's implicit, single-threaded init.
// Not thread-safe: one transfer at a time per instance; use one instance per thread.
class CurlTransport final : public Transport {
public:
  CurlTransport();
  ~CurlTransport() override;
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  Result<Response> send(const Request& request, const BodySink& sink,
                        const CancelToken& cancel) override;

private:
  struct Handles;
  std::unique_ptr<Handles> m_handles;
};

// Process-wide libcurl initialisation, held by `main` for the program's lifetime (libcurl
// requires it before any other thread starts). Keeps curl.h out of main.cpp.
class CurlGlobal {
public:
  CurlGlobal();
  ~CurlGlobal();
  CurlGlobal(const CurlGlobal&) = delete;
  CurlGlobal& operator=(const CurlGlobal&) = delete;
};

} // namespace ralph::http
