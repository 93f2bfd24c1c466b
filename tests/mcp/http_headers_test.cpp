// The client's HTTP side against a scripted loopback server: what headers each era sends
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id, Authorization, configured
// headers), the legacy fallback on a 4xx without a JSON-RPC body, SSE answers with progress and
// list_changed, and a current-era cancel that closes the stream instead of notifying.
#include "http/loopback_server.h"
#include "support/temp_dir.h"

#include "ralph/http/curl_transport.h"
#include "ralph/mcp/client.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace ralph::mcp {
namespace {

using nlohmann::json;
using testing::LoopbackServer;
using testing::TempDir;

struct Seen {
  std::string method;
  std::map<std::string, std::string> headers; // the ones this test looks at
};

class ScriptedHttpServer {
public:
  explicit ScriptedHttpServer(bool modern) : m_modern(modern) {
    m_loopback.server().Post("/mcp",
                             [this](const httplib::Request& request, httplib::Response& response) {
                               handle(request, response);
                             });
    m_loopback.server().Delete(
        "/mcp", [this](const httplib::Request& request, httplib::Response& response) {
          const std::lock_guard lock(m_mutex);
          m_seen.push_back(
              {"DELETE", {{"Mcp-Session-Id", request.get_header_value("Mcp-Session-Id")}}});
          response.status = 200;
        });
    m_loopback.start();
  }

  std::string url() const { return m_loopback.url("/mcp"); }
  LoopbackServer& loopback() { return m_loopback; }

  std::vector<Seen> seen() const {
    const std::lock_guard lock(m_mutex);
    return m_seen;
  }
  Seen last(const std::string& method) const {
    Seen found;
    for (const auto& s : seen()) {
      if (s.method == method) {
        found = s;
      }
    }
    return found;
  }

private:
  static std::string sse(const json& message) { return "data: " + message.dump() + "\n\n"; }

  void handle(const httplib::Request& request, httplib::Response& response) {
    const json message = json::parse(request.body);
    Seen seen{message.value("method", ""), {}};
    for (const char* name : {"MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "Mcp-Session-Id",
                             "Authorization", "X-Team", "Accept"}) {
      if (request.has_header(name)) {
        seen.headers[name] = request.get_header_value(name);
      }
    }
    {
      const std::lock_guard lock(m_mutex);
      m_seen.push_back(seen);
    }
    if (!message.contains("id")) {
      response.status = 202;
      return;
    }
    const json id = message["id"];
    const auto reply = [&](const json& result) {
      response.set_content(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}.dump(),
                           "application/json");
    };
    const std::string method = seen.method;
    if (method == "server/discover") {
      if (!m_modern) {
        response.status = 400;
        response.set_content("Bad Request: no session", "text/plain");
        return;
      }
      return reply({{"supportedVersions", {"2026-07-28"}},
                    {"capabilities", {{"tools", json::object()}}},
                    {"resultType", "complete"}});
    }
    if (method == "initialize") {
      response.set_header("Mcp-Session-Id", "session-42");
      return reply({{"protocolVersion", "2025-11-25"},
                    {"capabilities", json::object()},
                    {"serverInfo", {{"name", "scripted-http"}, {"version", "1"}}}});
    }
    if (method == "tools/list") {
      json tools = json::array({{{"name", "echo"}, {"inputSchema", {{"type", "object"}}}},
                                {{"name", "slow"}, {"inputSchema", {{"type", "object"}}}}});
      if (m_added) {
        tools.push_back({{"name", "added"}, {"inputSchema", {{"type", "object"}}}});
      }
      return reply({{"tools", tools}});
    }
    const std::string tool = message["params"].value("name", "");
    const json meta = message["params"].value("_meta", json::object());
    const json token = meta.value("progressToken", json());
    if (tool == "echo") {
      return reply({{"content", {{{"type", "text"}, {"text", "echoed"}}}}});
    }
    if (tool == "huge") {
      // A JSON answer over the client's 64 MiB bound.
      std::string text(65U << 20, 'x');
      response.set_content(
          json{{"jsonrpc", "2.0"},
               {"id", id},
               {"result", {{"content", {{{"type", "text"}, {"text", std::move(text)}}}}}}}
              .dump(),
          "application/json");
      return;
    }
    if (tool == "add") {
      // Progress and a list_changed on the response's own stream, then the answer.
      m_added = true;
      std::string body = sse({{"jsonrpc", "2.0"},
                              {"method", "notifications/progress"},
                              {"params", {{"progressToken", token}, {"progress", 1}}}}) +
                         sse({{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}}) +
                         sse({{"jsonrpc", "2.0"},
                              {"id", id},
                              {"result", {{"content", {{{"type", "text"}, {"text", "ok"}}}}}}});
      response.set_content(body, "text/event-stream");
      return;
    }
    if (tool == "slow") {
      // One progress event, then nothing until the test opens the gate.
      const std::string first = sse({{"jsonrpc", "2.0"},
                                     {"method", "notifications/progress"},
                                     {"params", {{"progressToken", token}, {"progress", 1}}}});
      const auto gate = m_loopback.gate();
      response.set_chunked_content_provider(
          "text/event-stream", [first, gate](std::size_t offset, httplib::DataSink& sink) {
            if (offset == 0) {
              sink.write(first.data(), first.size());
              return true;
            }
            gate.wait();
            sink.done();
            return true;
          });
      return;
    }
    response.set_content(
        json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", -32602}, {"message", "no tool"}}}}
            .dump(),
        "application/json");
  }

  bool m_modern;
  bool m_added = false;
  LoopbackServer m_loopback;
  mutable std::mutex m_mutex;
  std::vector<Seen> m_seen;
};

McpServerSettings settings_for(const ScriptedHttpServer& server) {
  McpServerSettings settings;
  settings.name = "scripted-http";
  settings.url = server.url();
  settings.bearer_token_env_var = "SCRIPTED_TOKEN";
  settings.headers = {{"X-Team", "ralph"}};
  settings.startup_timeout = std::chrono::seconds(10);
  return settings;
}

ClientOptions options_for(const TempDir& dir) {
  ClientOptions options;
  options.workspace = dir.path();
  options.getenv = [](const char* name) -> const char* {
    return std::string(name) == "SCRIPTED_TOKEN" ? "secret-token" : nullptr;
  };
  return options;
}

TEST(HttpHeaders, CurrentEraSendsVersionMethodNameAndAuthorization) {
  ScriptedHttpServer server(/*modern=*/true);
  TempDir dir;
  auto client = Client::connect(settings_for(server), options_for(dir));
  ASSERT_TRUE(client) << client.error().message;
  EXPECT_EQ((*client)->status().era, Era::modern);
  EXPECT_EQ((*client)->call("echo", "{}", {}).text, "echoed");
  const Seen call = server.last("tools/call");
  EXPECT_EQ(call.headers.at("MCP-Protocol-Version"), "2026-07-28");
  EXPECT_EQ(call.headers.at("Mcp-Method"), "tools/call");
  EXPECT_EQ(call.headers.at("Mcp-Name"), "echo");
  EXPECT_EQ(call.headers.at("Authorization"), "Bearer secret-token");
  EXPECT_EQ(call.headers.at("X-Team"), "ralph");
  EXPECT_EQ(call.headers.at("Accept"), "application/json, text/event-stream");
  EXPECT_EQ(call.headers.count("Mcp-Session-Id"), 0U);
  const Seen discover = server.last("server/discover");
  EXPECT_EQ(discover.headers.at("Mcp-Method"), "server/discover");
  EXPECT_EQ(discover.headers.at("MCP-Protocol-Version"), "2026-07-28");
  EXPECT_EQ(server.last("tools/list").headers.count("Mcp-Name"), 0U);
}

TEST(HttpHeaders, LegacyEraAfterA400KeepsTheSessionId) {
  ScriptedHttpServer server(/*modern=*/false);
  TempDir dir;
  auto client = Client::connect(settings_for(server), options_for(dir));
  ASSERT_TRUE(client) << client.error().message;
  EXPECT_EQ((*client)->status().era, Era::legacy);
  EXPECT_EQ((*client)->status().server_name, "scripted-http");
  EXPECT_EQ((*client)->call("echo", "{}", {}).text, "echoed");
  EXPECT_EQ(server.last("initialize").headers.count("Mcp-Session-Id"), 0U);
  const Seen initialized = server.last("notifications/initialized");
  EXPECT_EQ(initialized.headers.at("Mcp-Session-Id"), "session-42");
  const Seen call = server.last("tools/call");
  EXPECT_EQ(call.headers.at("Mcp-Session-Id"), "session-42");
  EXPECT_EQ(call.headers.at("MCP-Protocol-Version"), "2025-11-25");
  EXPECT_EQ(call.headers.at("Authorization"), "Bearer secret-token");
  EXPECT_EQ(call.headers.count("Mcp-Method"), 0U);
  client->reset();
  const Seen ended = server.last("DELETE");
  ASSERT_EQ(ended.method, "DELETE") << "the legacy session was not ended";
  EXPECT_EQ(ended.headers.at("Mcp-Session-Id"), "session-42");
}

TEST(HttpHeaders, SseAnswersCarryProgressAndListChanged) {
  ScriptedHttpServer server(/*modern=*/true);
  TempDir dir;
  auto client = Client::connect(settings_for(server), options_for(dir));
  ASSERT_TRUE(client) << client.error().message;
  EXPECT_EQ((*client)->tools().size(), 2U);
  int updates = 0;
  CallOptions options;
  options.on_progress = [&](const CallProgress& p) {
    ++updates;
    EXPECT_EQ(p.progress, 1);
  };
  const CallResult added = (*client)->call("add", "{}", options);
  EXPECT_EQ(added.text, "ok");
  EXPECT_EQ(updates, 1);
  const auto tools = (*client)->tools();
  ASSERT_EQ(tools.size(), 3U);
  EXPECT_EQ(tools.back().name, "added");
}

TEST(HttpHeaders, ACurrentEraCancelClosesTheStreamWithoutANotification) {
  ScriptedHttpServer server(/*modern=*/true);
  TempDir dir;
  auto client = Client::connect(settings_for(server), options_for(dir));
  ASSERT_TRUE(client) << client.error().message;
  CallOptions options;
  options.on_progress = [&](const CallProgress&) { options.cancel.cancel(); };
  const CallResult cancelled = (*client)->call("slow", "{}", options);
  EXPECT_TRUE(cancelled.cancelled);
  EXPECT_TRUE(cancelled.is_error);
  server.loopback().release();
  for (const auto& s : server.seen()) {
    EXPECT_NE(s.method, "notifications/cancelled");
  }
  EXPECT_EQ((*client)->call("echo", "{}", {}).text, "echoed");
}

TEST(HttpHeaders, AnAnswerOverTheBoundIsAnErrorNotAllInMemory) {
  ScriptedHttpServer server(/*modern=*/true);
  TempDir dir;
  auto client = Client::connect(settings_for(server), options_for(dir));
  ASSERT_TRUE(client) << client.error().message;
  const CallResult huge = (*client)->call("huge", "{}", {});
  EXPECT_TRUE(huge.is_error);
  EXPECT_NE(huge.text.find("over 67108864 bytes"), std::string::npos) << huge.text.substr(0, 300);
  EXPECT_EQ((*client)->call("echo", "{}", {}).text, "echoed");
}

TEST(HttpHeaders, ACallSendsThroughItsOwnTransportWhenGivenOne) {
  ScriptedHttpServer server(/*modern=*/true);
  TempDir dir;
  int owner_made = 0;
  ClientOptions options = options_for(dir);
  options.make_transport = [&owner_made] {
    ++owner_made;
    return std::make_unique<http::CurlTransport>();
  };
  auto client = Client::connect(settings_for(server), options);
  ASSERT_TRUE(client) << client.error().message;
  const int after_connect = owner_made;
  EXPECT_GT(after_connect, 0);
  int caller_made = 0;
  CallOptions call;
  call.make_transport = [&caller_made] {
    ++caller_made;
    return std::make_unique<http::CurlTransport>();
  };
  EXPECT_EQ((*client)->call("echo", "{}", call).text, "echoed");
  EXPECT_EQ(caller_made, 1);
  EXPECT_EQ(owner_made, after_connect);
}

} // namespace
} // namespace ralph::mcp
