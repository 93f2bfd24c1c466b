#pragma once

#include "server/http_server.h"

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace ralph::server {

// The answers of mutating requests by their Idempotency-Key, kept for a day, so a client that
// sends a request again (it did not see the answer) gets the first answer instead of a second
// action. Thread-safe.
class Idempotency {
public:
  enum class Seen { no, same, conflict };
  struct Lookup {
    Seen seen = Seen::no;
    HttpResponse response; // `same`: the first answer
  };
  // What is known of `key` for a request with this method, path and body. A `no` reserves the
  // key: a second request while the first runs gets `conflict`.
  Lookup find(const std::string& key, const std::string& request_text);
  void remember(const std::string& key, const HttpResponse& response);
  void forget(const std::string& key); // the first request failed before doing anything

private:
  struct Entry {
    std::string request_text;
    std::optional<HttpResponse> response;
    std::chrono::steady_clock::time_point at;
  };
  std::mutex m_mutex;
  std::map<std::string, Entry> m_entries;
};

} // namespace ralph::server
