#include "ralph/http/curl_transport.h"

#include "curl_easy.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace ralph::http {
namespace {

// How often the transfer loop wakes to look at the CancelToken and the idle deadline.
constexpr int k_poll_interval_ms = 50;

} // namespace

// The multi handle owns the connection cache; it must outlive the easy handle.
struct CurlTransport::Handles {
  MultiPtr multi{curl_multi_init()};
  EasyPtr easy{curl_easy_init()};
};

// The handles come with the first request: a transport that never sends costs nothing.
CurlTransport::CurlTransport() = default;

CurlTransport::~CurlTransport() = default;

Result<Response> CurlTransport::send(const Request& request, const BodySink& sink,
                                     const CancelToken& cancel) {
  if (!m_handles) {
    auto handles = std::make_unique<Handles>();
    if (!handles->easy || !handles->multi) {
      return fail(ErrorKind::internal, "libcurl could not create a handle");
    }
    m_handles = std::move(handles);
  }
  CURL* easy = m_handles->easy.get();
  CURLM* multi = m_handles->multi.get();
  const std::string where = describe(request);
  curl_easy_reset(easy); // keeps the connection cache, drops the last request's options

  Transfer transfer;
  transfer.easy = easy;
  transfer.sink = &sink;
  TRY_ASSIGN(const SlistPtr headers, configure(easy, request, transfer));
  if (curl_multi_add_handle(multi, easy) != CURLM_OK) {
    return fail(ErrorKind::internal, where + ": could not start the transfer");
  }
  // Removing the handle ends an unfinished transfer (and closes its connection); the reset
  // drops the pointers into this call's stack (headers, body, error buffer).
  struct Detach {
    CURLM* multi;
    CURL* easy;
    ~Detach() {
      curl_multi_remove_handle(multi, easy);
      curl_easy_reset(easy);
    }
  } detach{multi, easy};

  enum class Stop { none, done, cancelled, idle, failed };
  Stop stop = Stop::none;
  CURLcode result = CURLE_OK;
  while (stop == Stop::none) {
    int running = 0;
    if (curl_multi_perform(multi, &running) != CURLM_OK) {
      stop = Stop::failed;
      break;
    }
    int queued = 0;
    while (CURLMsg* message = curl_multi_info_read(multi, &queued)) {
      if (message->msg == CURLMSG_DONE) {
        result = message->data.result;
        stop = Stop::done;
      }
    }
    if (stop != Stop::none) {
      break;
    }
    if (cancel.cancelled()) {
      stop = Stop::cancelled;
    } else if (request.idle_timeout.count() > 0 &&
               SteadyClock::now() - transfer.last_activity >= request.idle_timeout) {
      stop = Stop::idle;
    } else if (running == 0 ||
               curl_multi_poll(multi, nullptr, 0, k_poll_interval_ms, nullptr) != CURLM_OK) {
      // Nothing running without a DONE message, or poll itself failing: libcurl is broken.
      stop = Stop::failed;
    }
  }

  if (transfer.exception) {
    std::rethrow_exception(transfer.exception);
  }
  switch (stop) {
  case Stop::cancelled:
    return fail(transport_error(ErrorKind::cancelled, false, where + ": cancelled"));
  case Stop::idle:
    return fail(transport_error(
        ErrorKind::timeout, true,
        fmt::format("{}: no data received for {} ms", where, request.idle_timeout.count())));
  case Stop::failed:
    return fail(ErrorKind::internal, where + ": libcurl multi interface failed");
  case Stop::none:
  case Stop::done:
    break;
  }
  return finish(transfer, result, where);
}

CurlGlobal::CurlGlobal() {
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    throw std::runtime_error("curl_global_init failed");
  }
}

CurlGlobal::~CurlGlobal() {
  curl_global_cleanup();
}

} // namespace ralph::http
