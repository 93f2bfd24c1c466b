#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/session/runtime.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ralph::server {

// `ralph serve`: what it serves and how it may be reached.
struct ServeRequest {
  std::filesystem::path workspace; // canonical: where goals without one work, and .ralph/serve/
  Config config;                   // what the sessions it starts begin from (store included)
  std::vector<Setting> flags;      // the command's, over a resumed session's recorded config
  std::string bind = "127.0.0.1";
  int port = 8321; // 0: a free one
  // The API token; empty: a new one, written to token_file. A bind to anything but loopback
  // needs one.
  std::string token;
  std::filesystem::path token_file;     // empty: .ralph/serve/token in the workspace
  std::vector<std::string> allow_hosts; // names besides loopback's the server answers to
  bool read_only = false;               // every POST refused
  int max_streams = 64;                 // SSE streams at once
};

// The server is listening.
struct ServeStart {
  std::string url;                  // "http://127.0.0.1:8321/"
  std::string login_url;            // with a one-time code
  std::filesystem::path token_file; // where the API token is (empty when it was given)
  int port = 0;
};

class ServeObserver {
public:
  virtual ~ServeObserver() = default;
  virtual void listening(const ServeStart& start) = 0;
  // Something went wrong that does not stop the server (the change feed lost its connection).
  virtual void warning(const std::string& text) = 0;
};

// Serves the API, the live events and the web UI (docs/reference/api.md) until `stop` is
// cancelled; then the sessions it runs end interrupted (resumable) and it returns. Errors are
// what kept it from starting: a bad bind, a non-loopback bind without a token, the store.
Result<void> serve(session::Runtime& runtime, const ServeRequest& request, ServeObserver& observer,
                   const CancelToken& stop);

} // namespace ralph::server
