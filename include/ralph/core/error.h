#pragma once

#include <tl/expected.hpp>

#include <chrono>
#include <string>
#include <utility>

namespace ralph {

// What went wrong, at the granularity a caller needs to decide what to do next.
enum class ErrorKind {
  usage,      // bad command line
  config,     // bad configuration file, variable or value
  io,         // file system
  network,    // connection refused, reset, DNS, TLS
  timeout,    // connect, read or overall deadline
  provider,   // the model server answered with an error
  parse,      // malformed data from outside (JSON, SSE, TOML)
  tool,       // a tool failed or was misused
  subprocess, // spawning or waiting on a child process
  store,      // session store
  cancelled,  // the user or a deadline stopped the work
  internal,   // a bug in ralph
};

// An expected failure. `message` is for humans and says what and where; the other fields are
// for callers that decide on retries or exit codes.
struct Error {
  ErrorKind kind = ErrorKind::internal;
  std::string message;
  bool retryable = false;
  int http_status = 0;                       // 0 when no HTTP status applies
  std::string provider_message;              // the provider's own error text, verbatim
  std::string provider_type;                 // e.g. "rate_limit_error", "insufficient_quota"
  std::string request_id;                    // x-request-id / request-id when known
  std::chrono::milliseconds retry_after{-1}; // server hint; negative when absent
  std::string file;                          // config/input file, when the error is about one
  int line = 0;
  int column = 0;
};

template <typename T> using Result = tl::expected<T, Error>;

inline tl::unexpected<Error> fail(ErrorKind kind, std::string message) {
  Error e;
  e.kind = kind;
  e.message = std::move(message);
  return tl::unexpected<Error>(std::move(e));
}

inline tl::unexpected<Error> fail(Error e) {
  return tl::unexpected<Error>(std::move(e));
}

// Short stable name of an error kind, used in events and JSON output.
const char* to_string(ErrorKind kind);

} // namespace ralph
