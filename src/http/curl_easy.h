#pragma once

// What CurlTransport and TransferLoop share: one easy handle's options and callbacks, and how
// libcurl's results become errors. Internal to http/; the only header that includes curl.h.

#include "ralph/core/error.h"
#include "ralph/http/transport.h"

#include <curl/curl.h>

#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <string_view>

namespace ralph::http {

using SteadyClock = std::chrono::steady_clock;

struct EasyDeleter {
  void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
struct MultiDeleter {
  void operator()(CURLM* multi) const { curl_multi_cleanup(multi); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using EasyPtr = std::unique_ptr<CURL, EasyDeleter>;
using MultiPtr = std::unique_ptr<CURLM, MultiDeleter>;
using SlistPtr = std::unique_ptr<curl_slist, SlistDeleter>;

// Everything the callbacks of one transfer share.
struct Transfer {
  CURL* easy = nullptr;
  const BodySink* sink = nullptr;
  Response response;
  bool decided = false;   // whether this response's body goes to the sink is known
  bool streaming = false; // the body goes to the sink
  bool sink_stopped = false;
  std::exception_ptr exception;
  SteadyClock::time_point last_activity = SteadyClock::now();
  curl_off_t uploaded = 0;
  char error_buffer[CURL_ERROR_SIZE] = {};
};

// Sets `easy` up for `request` with `transfer` as the callbacks' state; the returned header list
// must outlive the transfer.
Result<SlistPtr> configure(CURL* easy, const Request& request, Transfer& transfer);

// "METHOD URL" for messages: no credentials, no query (some APIs take keys there).
std::string describe(const Request& request);

Error transport_error(ErrorKind kind, bool retryable, std::string message);
Error map_curl_error(CURLcode code, const char* detail, const std::string& where);

// How a finished transfer (`result` from libcurl) reads to the caller: the response or the
// error. A callback's exception (Transfer::exception) is the caller's to deal with first.
Result<Response> finish(Transfer& transfer, CURLcode result, const std::string& where);

} // namespace ralph::http
