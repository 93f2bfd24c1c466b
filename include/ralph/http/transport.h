#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ralph::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method = "POST";
  std::string url;
  Headers headers;
  std::string body;
  std::chrono::milliseconds connect_timeout{10'000};
  // Longest silence allowed between two received bytes (0 = none).
  std::chrono::milliseconds idle_timeout{120'000};
  // Deadline for the whole exchange (0 = none).
  std::chrono::milliseconds total_timeout{0};
};

struct Response {
  int status = 0;
  Headers headers; // names lower-cased
  // The body, when no streaming sink took it (non-2xx bodies are always collected here).
  std::string body;

  // First header with this (lower-case) name, or empty.
  std::string_view header(std::string_view name) const;
};

// Receives a 2xx body as it arrives. Returning false aborts the transfer (reported as
// cancelled). Non-2xx bodies never reach the sink: they are collected into Response::body.
using BodySink = std::function<bool(std::string_view chunk)>;

// Sends one HTTP request. A transport error (refused, reset, timeout, cancel) is an Error;
// any HTTP status, including 4xx/5xx, is a Response.
class Transport {
public:
  virtual ~Transport() = default;
  virtual Result<Response> send(const Request& request, const BodySink& sink,
                                const CancelToken& cancel) = 0;
};

} // namespace ralph::http
