// ralph as an MCP server: `ralph mcp serve` (stdio) and `/mcp` in `ralph serve`, spoken to by
// the official inspector's CLI in both protocol eras, and by hand for what a client can get
// wrong.

#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "mcp_process.h"
#include "serve_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

namespace ralph::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;

const json k_modern_meta = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                            {"io.modelcontextprotocol/clientCapabilities", json::object()}};

// A git workspace with a file the verify commands look at.
struct Workspace {
  Workspace() {
    dir.write("a.txt", "hello\n");
    const std::string command = "cd '" + dir.path().string() +
                                "' && git init -q . && git -c user.email=t@t -c user.name=t add -A "
                                "&& git -c user.email=t@t -c user.name=t commit -qm init";
    EXPECT_EQ(std::system(command.c_str()), 0);
  }
  const fs::path& path() const { return dir.path(); }
  TempDir dir;
};

#define REQUIRE_INSPECTOR(var)                                                                     \
  const std::optional<fs::path> var = find_inspector();                                            \
  if (!var) {                                                                                      \
    if (std::getenv("RALPH_REQUIRE_AGENT_CLIS") != nullptr &&                                      \
        std::string(std::getenv("RALPH_REQUIRE_AGENT_CLIS")) == "1") {                             \
      FAIL() << "mcp-inspector is not in " << mcp_tests_dir()                                      \
             << " (npm ci in tests/mcp_packages)";                                                 \
    }                                                                                              \
    GTEST_SKIP() << "mcp-inspector is not in " << mcp_tests_dir();                                 \
  }

std::vector<std::string> tool_names(const json& listed) {
  std::vector<std::string> names;
  for (const json& tool : listed.value("tools", json::array())) {
    names.push_back(tool.value("name", ""));
  }
  return names;
}

// A verify command that writes its pid to `pid` and sleeps: whether its process still runs.
const char* const k_sleeper = "echo $$ > pid && exec sleep 120";
bool sleeper_runs(const fs::path& workspace) {
  std::ifstream in(workspace / "pid");
  pid_t pid = 0;
  return in >> pid && pid > 0 && ::kill(pid, 0) == 0;
}

const std::vector<std::string> k_all_tools = {"verify", "run_goal", "get_session", "list_sessions",
                                              "stop_session"};

// The inspector against one server target (a command or a URL with its header), in one era:
// lists the tools, calls verify with a passing and a failing command, and list_sessions.
void inspect(const fs::path& inspector, const std::vector<std::string>& target,
             const std::string& era, const fs::path& cwd) {
  SCOPED_TRACE("protocol era " + era);
  const auto run = [&](std::vector<std::string> args) {
    std::vector<std::string> all = target;
    all.insert(all.end(), args.begin(), args.end());
    all.insert(all.end(), {"--protocol-era", era});
    return run_inspector(inspector, all, cwd);
  };
  EXPECT_EQ(tool_names(run({"--method", "tools/list"})), k_all_tools);

  const json passed = run({"--method", "tools/call", "--tool-name", "verify", "--tool-arg",
                           R"(verify_cmd=["test -f a.txt"])"});
  EXPECT_EQ(passed["isError"], false) << passed.dump();
  EXPECT_EQ(passed["structuredContent"]["passed"], true) << passed.dump();
  EXPECT_EQ(passed["structuredContent"]["verdicts"][0]["result"], "pass");
  EXPECT_EQ(passed["structuredContent"]["verdicts"][0]["exit_code"], 0);

  const json failed = run({"--method", "tools/call", "--tool-name", "verify", "--tool-arg",
                           R"(verify_cmd=["echo 'FAIL: b.txt is missing'; test -f b.txt"])"});
  EXPECT_EQ(failed["structuredContent"]["passed"], false) << failed.dump();
  const json& verdict = failed["structuredContent"]["verdicts"][0];
  EXPECT_EQ(verdict["result"], "fail");
  EXPECT_EQ(verdict["exit_code"], 1);
  EXPECT_NE(verdict["output"].get<std::string>().find("FAIL: b.txt is missing"), std::string::npos);
  EXPECT_NE(failed["content"][0]["text"].get<std::string>().find("FAILED"), std::string::npos);

  const json sessions = run({"--method", "tools/call", "--tool-name", "list_sessions"});
  EXPECT_EQ(sessions["isError"], false) << sessions.dump();
  EXPECT_TRUE(sessions["structuredContent"]["sessions"].is_array()) << sessions.dump();
  if (era == "modern") {
    EXPECT_EQ(sessions["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "ralph");
  }
}

TEST(McpServe, TheInspectorListsAndCallsToolsOverStdioInBothEras) {
  REQUIRE_INSPECTOR(inspector);
  const Workspace workspace;
  for (const std::string era : {"legacy", "modern", "auto"}) {
    inspect(*inspector, {RALPH_BINARY, "mcp", "serve"}, era, workspace.path());
  }
}

TEST(McpServe, TheInspectorListsAndCallsToolsOverHttpInBothEras) {
  REQUIRE_INSPECTOR(inspector);
  const Workspace workspace;
  ServeProcess server(workspace.path());
  ASSERT_TRUE(server.started());
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/mcp";
  for (const std::string era : {"legacy", "modern", "auto"}) {
    inspect(*inspector, {url, "--header", "Authorization: Bearer " + server.token()}, era,
            workspace.path());
  }
}

TEST(McpServe, BadInputOnStdinGetsClearErrorsAndTheServerGoesOn) {
  const Workspace workspace;
  McpStdioProcess mcp(workspace.path());
  const auto error_of = [&](const std::string& line) {
    mcp.send_line(line);
    const std::optional<json> reply = mcp.read_response(seconds(30));
    return reply ? (*reply)["error"] : json();
  };
  EXPECT_EQ(error_of("{not json")["code"], -32700);
  EXPECT_EQ(error_of("[1, 2]")["code"], -32600);
  EXPECT_EQ(error_of("\"a string\"")["code"], -32600);
  EXPECT_EQ(error_of(R"({"jsonrpc":"2.0","id":3,"method":"no/such"})")["code"], -32601);
  const json huge = error_of(R"({"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":")" +
                             std::string(5 << 20, 'x') + "\"}}");
  EXPECT_EQ(huge["code"], -32600);
  EXPECT_NE(huge["message"].get<std::string>().find("4 MiB"), std::string::npos) << huge.dump();
  // Still answering, in both eras.
  mcp.send({{"jsonrpc", "2.0"},
            {"id", 5},
            {"method", "initialize"},
            {"params", {{"protocolVersion", "2025-06-18"}}}});
  EXPECT_EQ((*mcp.read_response(seconds(30)))["result"]["protocolVersion"], "2025-06-18");
  mcp.send({{"jsonrpc", "2.0"},
            {"id", 6},
            {"method", "server/discover"},
            {"params", {{"_meta", k_modern_meta}}}});
  EXPECT_EQ((*mcp.read_response(seconds(30)))["result"]["supportedVersions"][0], "2026-07-28");
  mcp.close_stdin();
  EXPECT_EQ(mcp.wait(), 0) << mcp.err();
}

TEST(McpServe, ProgressIsReportedWhenAskedFor) {
  const Workspace workspace;
  McpStdioProcess mcp(workspace.path());
  mcp.send({{"jsonrpc", "2.0"},
            {"id", 1},
            {"method", "tools/call"},
            {"params",
             {{"name", "verify"},
              {"arguments", {{"verify_cmd", {"true", "test -f a.txt"}}}},
              {"_meta", {{"progressToken", "p1"}}}}}});
  const std::optional<json> reply = mcp.read_response(seconds(60));
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["result"]["structuredContent"]["passed"], true);
  ASSERT_GE(mcp.notifications.size(), 2U);
  for (const json& note : mcp.notifications) {
    EXPECT_EQ(note["method"], "notifications/progress");
    EXPECT_EQ(note["params"]["progressToken"], "p1");
  }
  EXPECT_EQ(mcp.notifications.back()["params"]["progress"], 2);
  EXPECT_EQ(mcp.notifications.back()["params"]["total"], 2);
  // One step per verifier as it finishes, naming it and its verdict.
  std::set<std::string> messages;
  for (const json& note : mcp.notifications) {
    messages.insert(note["params"].value("message", ""));
  }
  EXPECT_EQ(mcp.notifications.size(), 3U);
  EXPECT_EQ(messages.count("command: true: pass"), 1U) << json(messages).dump();
  EXPECT_EQ(messages.count("command: test -f a.txt: pass"), 1U) << json(messages).dump();
}

TEST(McpServe, ClosingStdinWhileVerifyRunsCancelsItAndExitsCleanly) {
  const Workspace workspace;
  McpStdioProcess mcp(workspace.path());
  mcp.send(
      {{"jsonrpc", "2.0"},
       {"id", 1},
       {"method", "tools/call"},
       {"params",
        {{"name", "verify"}, {"arguments", {{"verify_cmd", {"touch started && sleep 120"}}}}}}});
  ASSERT_TRUE(eventually([&] { return fs::exists(workspace.path() / "started"); }));
  const auto closed = std::chrono::steady_clock::now();
  mcp.close_stdin();
  EXPECT_EQ(mcp.wait(), 0) << mcp.err();
  EXPECT_LT(std::chrono::steady_clock::now() - closed, seconds(60));
  // Nothing half made: no session was recorded for a verify call.
  const RalphOutput listed = run_ralph({"sessions", "list", "--json"}, workspace.path());
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out.find("\"id\""), std::string::npos) << listed.out;
}

TEST(McpServe, CancelledNotificationStopsARunningVerify) {
  const Workspace workspace;
  McpStdioProcess mcp(workspace.path());
  mcp.send(
      {{"jsonrpc", "2.0"},
       {"id", "v"},
       {"method", "tools/call"},
       {"params",
        {{"name", "verify"}, {"arguments", {{"verify_cmd", {"touch started && sleep 120"}}}}}}});
  ASSERT_TRUE(eventually([&] { return fs::exists(workspace.path() / "started"); }));
  mcp.send({{"jsonrpc", "2.0"},
            {"method", "notifications/cancelled"},
            {"params", {{"requestId", "v"}, {"reason", "test"}}}});
  const std::optional<json> reply = mcp.read_response(seconds(60));
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["id"], "v");
  EXPECT_EQ((*reply)["result"]["isError"], true) << reply->dump();
}

TEST(McpServe, PastSixtyFourRequestsAtOnceARequestIsRefusedButACancelStillWorks) {
  const Workspace workspace;
  McpStdioProcess mcp(workspace.path());
  const auto verify = [](int id) {
    return json{{"jsonrpc", "2.0"},
                {"id", id},
                {"method", "tools/call"},
                {"params",
                 {{"name", "verify"},
                  {"arguments",
                   {{"verify_cmd", {"touch started-" + std::to_string(id) + " && sleep 120"}}}}}}};
  };
  for (int id = 1; id <= 64; ++id) {
    mcp.send(verify(id));
  }
  ASSERT_TRUE(eventually([&] {
    for (int id = 1; id <= 64; ++id) {
      if (!fs::exists(workspace.path() / ("started-" + std::to_string(id)))) {
        return false;
      }
    }
    return true;
  }));
  mcp.send(verify(65));
  const std::optional<json> refused = mcp.read_response(seconds(60));
  ASSERT_TRUE(refused);
  EXPECT_EQ((*refused)["id"], 65);
  EXPECT_EQ((*refused)["error"]["code"], -32000) << refused->dump();
  EXPECT_FALSE(fs::exists(workspace.path() / "started-65"));
  // A cancel is a notification: it still gets through, and frees its request's thread.
  mcp.send({{"jsonrpc", "2.0"},
            {"method", "notifications/cancelled"},
            {"params", {{"requestId", 1}, {"reason", "test"}}}});
  const std::optional<json> cancelled = mcp.read_response(seconds(60));
  ASSERT_TRUE(cancelled);
  EXPECT_EQ((*cancelled)["id"], 1);
  mcp.close_stdin();
  EXPECT_EQ(mcp.wait(), 0) << mcp.err();
}

TEST(McpServe, SecretsInAVerifiersOutputAreRedactedInWhatTheClientGets) {
  const Workspace workspace;
  McpStdioProcess mcp(workspace.path(), {}, {{"DEPLOY_TOKEN", "dtok-5f3a9c2e81"}});
  json params = {{"name", "verify"}, {"_meta", {{"progressToken", "p"}}}};
  params["arguments"]["verify_cmd"] = json::array({"echo \"token=$DEPLOY_TOKEN\"; exit 1"});
  mcp.send({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", params}});
  const std::optional<json> reply = mcp.read_response(seconds(60));
  ASSERT_TRUE(reply);
  const std::string text = reply->dump();
  // The control: the command did print the token, and the client got the output.
  EXPECT_THAT(text, HasSubstr("token="));
  EXPECT_THAT(text, Not(HasSubstr("dtok-5f3a9c2e81")));
  EXPECT_THAT(text, HasSubstr("[REDACTED]"));
  // One check, no loop: the feedback speaks of no attempt.
  EXPECT_THAT(text, HasSubstr("Your answer did not pass verification."));
  EXPECT_THAT(text, Not(HasSubstr("attempt 1 of")));
  for (const json& notification : mcp.notifications) {
    EXPECT_THAT(notification.dump(), Not(HasSubstr("dtok-5f3a9c2e81")));
  }
}

// `ralph mcp serve` whose sessions use the fake provider.
class McpSessions : public ::testing::Test {
protected:
  std::unique_ptr<McpStdioProcess> start() {
    return std::make_unique<McpStdioProcess>(
        workspace.path(),
        std::vector<std::string>{"--model", "openai/gpt-test", "--base-url",
                                 provider.base_url() + "/v1"},
        std::map<std::string, std::string>{{"OPENAI_API_KEY", "sk-test-mcp-key-123"}});
  }
  static json call(McpStdioProcess& mcp, const std::string& tool, const json& arguments,
                   const json& progress_token = nullptr) {
    static int id = 0;
    json params = {{"name", tool}, {"arguments", arguments}};
    if (!progress_token.is_null()) {
      params["_meta"] = {{"progressToken", progress_token}};
    }
    mcp.send({{"jsonrpc", "2.0"}, {"id", ++id}, {"method", "tools/call"}, {"params", params}});
    const std::optional<json> reply = mcp.read_response(seconds(120));
    return reply ? (*reply)["result"] : json();
  }
  Workspace workspace;
  FakeProviderServer provider;
};

TEST_F(McpSessions, RunGoalWaitsWithProgressAndTheSessionToolsSeeIt) {
  // Fails `test -f done.txt` once, then passes.
  provider.push(tool_turn("write_file", {{"path", "notes.txt"}, {"content", "first try\n"}}));
  provider.push(text_turn("I wrote notes.txt."));
  provider.push(tool_turn("write_file", {{"path", "done.txt"}, {"content", "done\n"}}));
  provider.push(text_turn("done.txt is written."));
  auto mcp = start();
  const json ran =
      call(*mcp, "run_goal",
           {{"goal", "write done.txt"}, {"verify", "test -f done.txt"}, {"wait", true}}, "goal");
  ASSERT_EQ(ran["isError"], false) << ran.dump();
  const json& session = ran["structuredContent"]["session"];
  EXPECT_EQ(session["status"], "completed") << ran.dump();
  EXPECT_EQ(session["verified"], true);
  EXPECT_EQ(ran["structuredContent"]["attempts"].size(), 2U);
  EXPECT_FALSE(ran["structuredContent"].contains("config"));
  EXPECT_NE(ran["content"][0]["text"].get<std::string>().find("done.txt is written."),
            std::string::npos);
  EXPECT_TRUE(fs::exists(workspace.path() / "done.txt"));
  // Progress per attempt and verdict: two attempts, each with one verdict.
  std::vector<std::string> steps;
  for (const json& note : mcp->notifications) {
    EXPECT_EQ(note["params"]["progressToken"], "goal");
    steps.push_back(note["params"].value("message", ""));
  }
  EXPECT_EQ(steps.size(), 4U) << json(steps).dump();
  const std::string id = session["id"];
  const json got = call(*mcp, "get_session", {{"session_id", id}});
  EXPECT_EQ(got["structuredContent"]["session"]["status"], "completed") << got.dump();
  const json listed = call(*mcp, "list_sessions", json::object());
  ASSERT_EQ(listed["structuredContent"]["sessions"].size(), 1U);
  EXPECT_EQ(listed["structuredContent"]["sessions"][0]["id"], id);
  EXPECT_EQ(call(*mcp, "get_session", {{"session_id", "nope"}})["isError"], true);
  mcp->close_stdin();
  EXPECT_EQ(mcp->wait(), 0) << mcp->err();
}

TEST_F(McpSessions, StopSessionAndClosingStdinEndSessionsInterrupted) {
  HeldAnswers held(provider, "held");
  auto mcp = start();
  const json first = call(*mcp, "run_goal", {{"goal", "g"}, {"verify", "test -f done.txt"}});
  ASSERT_EQ(first["isError"], false) << first.dump();
  const std::string stopped = first["structuredContent"]["id"];
  ASSERT_TRUE(provider.wait_for_requests(1, seconds(30)));
  const json stop = call(*mcp, "stop_session", {{"session_id", stopped}});
  EXPECT_EQ(stop["structuredContent"]["stopping"], true) << stop.dump();
  EXPECT_EQ(call(*mcp, "stop_session", {{"session_id", "nope"}})["isError"], true);

  const json second = call(*mcp, "run_goal", {{"goal", "g2"}, {"verify", "test -f done.txt"}});
  const std::string left = second["structuredContent"]["id"];
  ASSERT_TRUE(provider.wait_for_requests(2, seconds(30)));
  mcp->close_stdin(); // the client goes away with a session running
  held.release();
  EXPECT_EQ(mcp->wait(), 0) << mcp->err();
  EXPECT_EQ(show_session(stopped, workspace.path())["status"], "interrupted");
  EXPECT_EQ(show_session(left, workspace.path())["status"], "interrupted");
}

TEST_F(McpSessions, ABadGoalIsAnErrorResultAndRecordsNothing) {
  auto mcp = start();
  const json refused = call(*mcp, "run_goal", {{"goal", "g"}, {"max_iterations", "many"}});
  EXPECT_EQ(refused["isError"], true) << refused.dump();
  EXPECT_NE(refused["content"][0]["text"].get<std::string>().find("max_iterations"),
            std::string::npos)
      << refused.dump();
  mcp->send({{"jsonrpc", "2.0"},
             {"id", "x"},
             {"method", "tools/call"},
             {"params", {{"name", "run_goal"}, {"arguments", {{"wait", true}}}}}});
  EXPECT_EQ((*mcp->read_response(seconds(30)))["error"]["code"], -32602);
  EXPECT_TRUE(call(*mcp, "list_sessions", json::object())["structuredContent"]["sessions"].empty());
}

// Raw requests to /mcp: what the HTTP rules of each era say.
struct HttpMcp {
  explicit HttpMcp(const fs::path& workspace, std::vector<std::string> args = {})
      : server(workspace, std::move(args)) {}
  httplib::Result post(const json& body, httplib::Headers headers = {}, bool signed_in = true) {
    headers.emplace("Accept", "application/json, text/event-stream");
    return server.client(signed_in)->Post("/mcp", headers, body.dump(), "application/json");
  }
  ServeProcess server;
};

json modern(const std::string& method, json params = json::object(), int id = 1) {
  params["_meta"] = k_modern_meta;
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

TEST(McpServeHttp, ModernHeadersMustMatchTheBody) {
  const Workspace workspace;
  HttpMcp mcp(workspace.path());
  ASSERT_TRUE(mcp.server.started());
  const auto ok = mcp.post(modern("tools/list"), {{"Mcp-Method", "tools/list"}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  EXPECT_EQ(json::parse(ok->body)["result"]["cacheScope"], "public");

  const auto wrong_method = mcp.post(modern("tools/list"), {{"Mcp-Method", "tools/call"}});
  EXPECT_EQ(wrong_method->status, 400);
  EXPECT_EQ(json::parse(wrong_method->body)["error"]["code"], -32020);
  EXPECT_EQ(json::parse(wrong_method->body)["id"], 1);

  const auto wrong_name = mcp.post(modern("tools/call", {{"name", "list_sessions"}}),
                                   {{"Mcp-Method", "tools/call"}, {"Mcp-Name", "verify"}});
  EXPECT_EQ(wrong_name->status, 400);
  EXPECT_EQ(json::parse(wrong_name->body)["error"]["code"], -32020);

  const auto unknown = mcp.post(modern("no/such"), {{"Mcp-Method", "no/such"}});
  EXPECT_EQ(unknown->status, 404);
  EXPECT_EQ(json::parse(unknown->body)["error"]["code"], -32601);

  const auto future =
      mcp.post({{"jsonrpc", "2.0"},
                {"id", 2},
                {"method", "tools/list"},
                {"params",
                 {{"_meta",
                   {{"io.modelcontextprotocol/protocolVersion", "2099-01-01"},
                    {"io.modelcontextprotocol/clientCapabilities", json::object()}}}}}},
               {{"Mcp-Method", "tools/list"}});
  EXPECT_EQ(future->status, 400);
  EXPECT_EQ(json::parse(future->body)["error"]["code"], -32022);
  EXPECT_EQ(json::parse(future->body)["error"]["data"]["supported"][0], "2026-07-28");
}

TEST(McpServeHttp, LegacySessionsBeginAtInitializeAndEndWithDelete) {
  const Workspace workspace;
  HttpMcp mcp(workspace.path());
  ASSERT_TRUE(mcp.server.started());
  const auto init = mcp.post({{"jsonrpc", "2.0"},
                              {"id", 1},
                              {"method", "initialize"},
                              {"params", {{"protocolVersion", "2025-11-25"}}}});
  ASSERT_TRUE(init);
  EXPECT_EQ(init->status, 200);
  const std::string session = init->get_header_value("Mcp-Session-Id");
  ASSERT_FALSE(session.empty());
  const auto listed = mcp.post({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}},
                               {{"Mcp-Session-Id", session}});
  EXPECT_EQ(listed->status, 200);
  const auto note = mcp.post({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
                             {{"Mcp-Session-Id", session}});
  EXPECT_EQ(note->status, 202);
  EXPECT_EQ(mcp.server.client()->Get("/mcp")->status, 405);
  EXPECT_EQ(mcp.server.client()->Delete("/mcp", {{"Mcp-Session-Id", session}})->status, 200);
  const auto after = mcp.post({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/list"}},
                              {{"Mcp-Session-Id", session}});
  EXPECT_EQ(after->status, 404);
}

TEST(McpServeHttp, TheServersTokenHostAndOriginChecksGuardIt) {
  const Workspace workspace;
  HttpMcp mcp(workspace.path());
  ASSERT_TRUE(mcp.server.started());
  const json list = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}};
  EXPECT_EQ(mcp.post(list, {}, false)->status, 401);
  EXPECT_EQ(mcp.post(list, {{"Origin", "http://evil.example"}})->status, 403);
  auto rebinding = mcp.server.client();
  rebinding->set_default_headers({{"Host", "evil.example"}});
  EXPECT_EQ(rebinding->Post("/mcp", list.dump(), "application/json")->status, 403);
  EXPECT_EQ(mcp.post(list)->status, 200);
}

TEST(McpServeHttp, MalformedBodiesAreBadRequests) {
  const Workspace workspace;
  HttpMcp mcp(workspace.path());
  ASSERT_TRUE(mcp.server.started());
  auto client = mcp.server.client();
  const auto bad = client->Post("/mcp", "{not json", "application/json");
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(json::parse(bad->body)["error"]["code"], -32700);
  const auto batch = client->Post("/mcp", "[]", "application/json");
  EXPECT_EQ(batch->status, 400);
  EXPECT_EQ(json::parse(batch->body)["error"]["code"], -32600);
  const auto huge = client->Post("/mcp",
                                 R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":")" +
                                     std::string(5 << 20, 'x') + "\"}}",
                                 "application/json");
  ASSERT_TRUE(huge);
  EXPECT_EQ(huge->status, 413);
  const auto version = mcp.post({{"jsonrpc", "2.0"}, {"id", 4}, {"method", "tools/list"}},
                                {{"MCP-Protocol-Version", "1999-01-01"}});
  EXPECT_EQ(version->status, 400);
  EXPECT_EQ(json::parse(version->body)["id"], 4);
  // Nothing of that reached the store.
  EXPECT_TRUE(mcp.server.get_json("/api/v1/sessions")["sessions"].empty());
}

TEST(McpServeHttp, ProgressComesAsAnEventStream) {
  const Workspace workspace;
  HttpMcp mcp(workspace.path());
  ASSERT_TRUE(mcp.server.started());
  const auto reply = mcp.post({{"jsonrpc", "2.0"},
                               {"id", 7},
                               {"method", "tools/call"},
                               {"params",
                                {{"name", "verify"},
                                 {"arguments", {{"verify_cmd", {"true"}}}},
                                 {"_meta", {{"progressToken", 42}}}}}});
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_NE(reply->get_header_value("Content-Type").find("text/event-stream"), std::string::npos);
  std::vector<json> events;
  std::istringstream lines(reply->body);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("data: ", 0) == 0) {
      events.push_back(json::parse(line.substr(6)));
    }
  }
  ASSERT_GE(events.size(), 2U) << reply->body;
  EXPECT_EQ(events.front()["method"], "notifications/progress");
  EXPECT_EQ(events.front()["params"]["progressToken"], 42);
  EXPECT_EQ(events.back()["id"], 7);
  EXPECT_EQ(events.back()["result"]["structuredContent"]["passed"], true);
}

TEST(McpServeHttp, ClosingTheProgressStreamCancelsTheCall) {
  const Workspace workspace;
  HttpMcp mcp(workspace.path());
  ASSERT_TRUE(mcp.server.started());
  const json call = {{"jsonrpc", "2.0"},
                     {"id", 9},
                     {"method", "tools/call"},
                     {"params",
                      {{"name", "verify"},
                       {"arguments", {{"verify_cmd", {k_sleeper}}}},
                       {"_meta", {{"progressToken", "t"}}}}}};
  auto client = mcp.server.client();
  std::string seen;
  httplib::Request request;
  request.method = "POST";
  request.path = "/mcp";
  request.headers = {{"Accept", "application/json, text/event-stream"},
                     {"Content-Type", "application/json"}};
  request.body = call.dump();
  // Reads until the first progress event once the command runs, then hangs up.
  request.content_receiver = [&](const char* data, size_t length, uint64_t, uint64_t) {
    seen.append(data, length);
    return seen.find("notifications/progress") == std::string::npos ||
           !sleeper_runs(workspace.path());
  };
  httplib::Response response;
  httplib::Error error = httplib::Error::Success;
  client->send(request, response, error);
  client.reset(); // the connection is closed, whatever the client library kept of it
  EXPECT_NE(seen.find("notifications/progress"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("\"id\":9"), std::string::npos) << seen; // no answer came: it hung up first
  ASSERT_TRUE(fs::exists(workspace.path() / "pid"));
  EXPECT_TRUE(eventually([&] { return !sleeper_runs(workspace.path()); }));
}

TEST(McpServeHttp, ReadOnlyRefusesToolsThatRunAnything) {
  const Workspace workspace;
  HttpMcp mcp(workspace.path(), {"--read-only"});
  ASSERT_TRUE(mcp.server.started());
  const auto verify =
      mcp.post({{"jsonrpc", "2.0"},
                {"id", 1},
                {"method", "tools/call"},
                {"params", {{"name", "verify"}, {"arguments", {{"verify_cmd", {"touch ran"}}}}}}});
  ASSERT_TRUE(verify);
  EXPECT_EQ(json::parse(verify->body)["result"]["isError"], true);
  EXPECT_FALSE(fs::exists(workspace.path() / "ran"));
  const auto list = mcp.post({{"jsonrpc", "2.0"},
                              {"id", 2},
                              {"method", "tools/call"},
                              {"params", {{"name", "list_sessions"}}}});
  EXPECT_EQ(json::parse(list->body)["result"]["isError"], false);
}

} // namespace
} // namespace ralph::testing
