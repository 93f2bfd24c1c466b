#pragma once

// A `ralph serve` process for the tests: started on a free port in a workspace, with an HTTP
// client that signs its requests with the server's API token.

#include "ralph_process.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ralph::testing {

class ServeProcess {
public:
  // `args` come after `serve --port 0`; `env` as RalphProcess takes it.
  ServeProcess(const std::filesystem::path& workspace, std::vector<std::string> args = {},
               const std::map<std::string, std::string>& env = {});
  ~ServeProcess();

  bool started() const { return m_port > 0; }
  int port() const { return m_port; }
  const std::string& login_url() const { return m_login_url; }
  const std::string& token() const { return m_token; }
  RalphProcess& process() { return *m_process; }
  // Stops it with SIGTERM and waits.
  RalphOutput stop();

  // A client of it: Host 127.0.0.1:PORT; with the bearer token unless `signed_in` is false.
  std::unique_ptr<httplib::Client> client(bool signed_in = true) const;
  httplib::Result get(const std::string& path) const;
  httplib::Result post(const std::string& path, const nlohmann::json& body,
                       const httplib::Headers& headers = {}) const;
  // The JSON body of GET `path` (a test failure when it is not 200 and JSON).
  nlohmann::json get_json(const std::string& path) const;

private:
  std::unique_ptr<RalphProcess> m_process;
  int m_port = 0;
  std::string m_login_url;
  std::string m_token;
  bool m_stopped = false;
};

// Server-sent events read from a stream until a condition holds.
struct SseEvent {
  std::string id;
  std::string type;
  nlohmann::json data;
};

// Reads the stream at `path` (with `last_event_id` when set) until `until` holds for the events
// read so far or `timeout` passes; returns them.
std::vector<SseEvent> read_events(const ServeProcess& server, const std::string& path,
                                  const std::function<bool(const std::vector<SseEvent>&)>& until,
                                  std::chrono::milliseconds timeout,
                                  const std::string& last_event_id = {});

} // namespace ralph::testing
