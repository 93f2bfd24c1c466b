#include "serve_process.h"

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <regex>

namespace ralph::testing {

ServeProcess::ServeProcess(const std::filesystem::path& workspace, std::vector<std::string> args,
                           const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv = {"serve", "--port", "0"};
  argv.insert(argv.end(), args.begin(), args.end());
  m_process = std::make_unique<RalphProcess>(argv, workspace, env, Streams::terminal);
  if (!m_process->read_until("listening on", std::chrono::seconds(60))) {
    ADD_FAILURE() << "ralph serve did not start: " << m_process->live();
    return;
  }
  static const std::regex k_link(R"((http://127\.0\.0\.1:(\d+)/login\?code=[0-9a-f]+))");
  std::smatch match;
  const std::string& shown = m_process->live();
  if (!std::regex_search(shown, match, k_link)) {
    ADD_FAILURE() << "no sign-in link in: " << shown;
    return;
  }
  m_login_url = match[1].str();
  m_port = std::stoi(match[2].str());
  std::ifstream token_file(workspace / ".ralph" / "serve" / "token");
  std::getline(token_file, m_token);
}

ServeProcess::~ServeProcess() {
  if (!m_stopped) {
    stop();
  }
}

RalphOutput ServeProcess::stop() {
  m_stopped = true;
  m_process->signal(SIGTERM);
  return m_process->wait();
}

std::unique_ptr<httplib::Client> ServeProcess::client(bool signed_in) const {
  auto client = std::make_unique<httplib::Client>("127.0.0.1", m_port);
  client->set_read_timeout(std::chrono::seconds(60));
  if (signed_in) {
    client->set_bearer_token_auth(m_token);
  }
  return client;
}

httplib::Result ServeProcess::get(const std::string& path) const {
  return client()->Get(path);
}

httplib::Result ServeProcess::post(const std::string& path, const nlohmann::json& body,
                                   const httplib::Headers& headers) const {
  return client()->Post(path, headers, body.dump(), "application/json");
}

nlohmann::json ServeProcess::get_json(const std::string& path) const {
  const auto result = get(path);
  if (!result) {
    ADD_FAILURE() << "GET " << path << ": no answer";
    return nullptr;
  }
  EXPECT_EQ(result->status, 200) << path << ": " << result->body;
  return nlohmann::json::parse(result->body, nullptr, false);
}

std::vector<SseEvent> read_events(const ServeProcess& server, const std::string& path,
                                  const std::function<bool(const std::vector<SseEvent>&)>& until,
                                  std::chrono::milliseconds timeout,
                                  const std::string& last_event_id) {
  std::vector<SseEvent> events;
  auto client = server.client();
  client->set_read_timeout(timeout);
  httplib::Headers headers;
  if (!last_event_id.empty()) {
    headers.emplace("Last-Event-ID", last_event_id);
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string buffer;
  SseEvent current;
  client->Get(path, headers, [&](const char* data, std::size_t size) {
    buffer.append(data, size);
    for (std::size_t end = buffer.find('\n'); end != std::string::npos; end = buffer.find('\n')) {
      const std::string line = buffer.substr(0, end);
      buffer.erase(0, end + 1);
      if (line.empty()) {
        if (!current.type.empty()) {
          events.push_back(std::move(current));
        }
        current = {};
      } else if (line.rfind("id: ", 0) == 0) {
        current.id = line.substr(4);
      } else if (line.rfind("event: ", 0) == 0) {
        current.type = line.substr(7);
      } else if (line.rfind("data: ", 0) == 0) {
        current.data = nlohmann::json::parse(line.substr(6), nullptr, false);
      }
    }
    return !until(events) && std::chrono::steady_clock::now() < deadline;
  });
  return events;
}

} // namespace ralph::testing
