#pragma once

#include "ralph/core/enum_names.h"

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

// An expected failure. `message` is for humans and says what and where (a provider's own words
// and request id included); the other fields are what callers decide on: retrying (`retryable`,
// the HTTP status, the server's retry-after hint) and pointing at a configuration or input file.
struct Error {
  ErrorKind kind = ErrorKind::internal;
  std::string message;
  bool retryable = false;
  int http_status = 0;                       // 0 when no HTTP status applies
  std::chrono::milliseconds retry_after{-1}; // server hint; negative when absent
  bool refused = false; // no connection could be made (refused): the request never left
  std::string file;     // config/input file, when the error is about one
  int line = 0;
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

inline constexpr EnumName<ErrorKind> k_error_kind_names[] = {{ErrorKind::usage, "usage"},
                                                             {ErrorKind::config, "config"},
                                                             {ErrorKind::io, "io"},
                                                             {ErrorKind::network, "network"},
                                                             {ErrorKind::timeout, "timeout"},
                                                             {ErrorKind::provider, "provider"},
                                                             {ErrorKind::parse, "parse"},
                                                             {ErrorKind::tool, "tool"},
                                                             {ErrorKind::subprocess, "subprocess"},
                                                             {ErrorKind::store, "store"},
                                                             {ErrorKind::cancelled, "cancelled"},
                                                             {ErrorKind::internal, "internal"}};

// Short stable name of an error kind, used in events and JSON output.
inline const char* to_string(ErrorKind kind) {
  return name_of(k_error_kind_names, kind);
}

} // namespace ralph
