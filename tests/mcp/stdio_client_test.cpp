// The client over stdio against the scripted server (fixtures/scripted_server.py): era detection
// both ways, paging, list_changed, progress, cancel, timeouts, the server's own requests, noise on
// stdout, and a server that dies (restarted once, then failed).
#include "mcp/mcp_test_servers.h"
#include "support/temp_dir.h"

#include "ralph/mcp/client.h"
#include "ralph/mcp/mcp_tool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ralph::mcp {
namespace {

using testing::scripted_server;
using testing::TempDir;

struct Harness {
  TempDir dir;
  ClientOptions options;
  std::mutex mutex;
  std::vector<std::string> stderr_lines;

  Harness() {
    options.workspace = dir.path();
    options.on_stderr = [this](std::string_view line) {
      const std::lock_guard lock(mutex);
      stderr_lines.emplace_back(line);
    };
  }

  std::unique_ptr<Client> connect(const McpServerSettings& settings) {
    auto client = Client::connect(settings, options);
    EXPECT_TRUE(client) << (client ? "" : client.error().message);
    return client ? *std::move(client) : nullptr;
  }

  // The messages the server received (its --log), as JSON.
  std::vector<nlohmann::json> received() const {
    std::vector<nlohmann::json> messages;
    std::ifstream in(dir.path() / "log.jsonl");
    for (std::string line; std::getline(in, line);) {
      messages.push_back(nlohmann::json::parse(line));
    }
    return messages;
  }

  std::vector<std::string> methods() const {
    std::vector<std::string> names;
    for (const auto& message : received()) {
      names.push_back(message.value("method", "(response)"));
    }
    return names;
  }

  std::string log_option() const { return (dir.path() / "log.jsonl").string(); }
};

std::vector<std::string> names_of(const std::vector<RemoteTool>& tools) {
  std::vector<std::string> names;
  for (const auto& tool : tools) {
    names.push_back(tool.name);
  }
  return names;
}

TEST(StdioClient, FallsBackToInitializeWhenDiscoverIsNotFound) {
  Harness h;
  auto client = h.connect(scripted_server({"--log", h.log_option()}));
  ASSERT_TRUE(client);
  const ServerStatus status = client->status();
  EXPECT_EQ(status.era, Era::legacy);
  EXPECT_EQ(status.protocol_version, "2025-11-25");
  EXPECT_EQ(status.server_name, "scripted");
  EXPECT_EQ(status.server_version, "1.2");
  EXPECT_EQ(status.state, ServerState::running);
  EXPECT_EQ(status.transport, "stdio");
  EXPECT_GT(status.pid, 0);
  const auto methods = h.methods();
  ASSERT_GE(methods.size(), 4U);
  EXPECT_EQ(std::vector<std::string>(methods.begin(), methods.begin() + 4),
            (std::vector<std::string>{"server/discover", "initialize", "notifications/initialized",
                                      "tools/list"}));
  const auto first = h.received().front();
  EXPECT_EQ(first["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
  EXPECT_EQ(h.received()[1]["params"]["protocolVersion"], "2025-11-25");
  const CallResult echo = client->call("echo", R"({"text":"hi"})", {});
  EXPECT_FALSE(echo.is_error) << echo.text;
  EXPECT_EQ(echo.text, "Echo: hi");
}

TEST(StdioClient, FieldsOfTheWrongTypeAreReadAsAbsentNotThrown) {
  Harness h;
  auto client = h.connect(scripted_server({"--wrong-types"}));
  ASSERT_TRUE(client);
  const ServerStatus status = client->status();
  EXPECT_EQ(status.server_name, "");
  EXPECT_EQ(status.server_version, "");
  ASSERT_FALSE(status.tools.empty());
  EXPECT_EQ(status.tools.front().title, "");
  EXPECT_EQ(status.tools.front().description, "");
  const CallResult echo = client->call("echo", R"({"text":"hi"})", {});
  EXPECT_FALSE(echo.is_error) << echo.text;
  EXPECT_EQ(echo.text, "Echo: hi");
  const CallResult failed = client->call("fail_rpc", "{}", {});
  EXPECT_TRUE(failed.is_error);
  EXPECT_THAT(failed.text, ::testing::HasSubstr("-32603"));
}

TEST(StdioClient, DetectsAModernServerAndSendsMetaOnEveryRequest) {
  Harness h;
  auto client = h.connect(scripted_server({"--era", "modern", "--log", h.log_option()}));
  ASSERT_TRUE(client);
  EXPECT_EQ(client->status().era, Era::modern);
  EXPECT_EQ(client->status().protocol_version, "2026-07-28");
  EXPECT_EQ(client->status().server_version, "9.9");
  const CallResult echo = client->call("echo", R"({"text":"now"})", {});
  EXPECT_EQ(echo.text, "Echo: now");
  const auto received = h.received();
  for (const auto& message : received) {
    EXPECT_NE(message["method"], "initialize");
    EXPECT_EQ(message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28")
        << message.dump();
    EXPECT_TRUE(message["params"]["_meta"].contains("io.modelcontextprotocol/clientInfo"));
  }
}

TEST(StdioClient, AnInputRequiredResultIsAClearError) {
  Harness h;
  auto client = h.connect(scripted_server({"--era", "modern"}));
  ASSERT_TRUE(client);
  const CallResult result = client->call("needs_input", "{}", {});
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.text.find("asked for input"), std::string::npos) << result.text;
}

TEST(StdioClient, TreatsASilentDiscoverAsLegacy) {
  Harness h;
  auto settings = scripted_server({"--era", "silent"});
  settings.startup_timeout = std::chrono::milliseconds(3000);
  auto client = h.connect(settings);
  ASSERT_TRUE(client);
  EXPECT_EQ(client->status().era, Era::legacy);
}

TEST(StdioClient, RetriesWithAVersionTheServerOffers) {
  Harness h;
  auto client = h.connect(scripted_server({"--era", "unsupported"}));
  ASSERT_TRUE(client);
  EXPECT_EQ(client->status().era, Era::legacy);
  EXPECT_EQ(client->status().protocol_version, "2025-06-18");
}

TEST(StdioClient, AServerThatNeverAnswersFailsToConnectInItsStartupTime) {
  Harness h;
  auto settings = scripted_server({"--era", "mute"});
  settings.startup_timeout = std::chrono::milliseconds(1500);
  const auto start = std::chrono::steady_clock::now();
  auto client = Client::connect(settings, h.options);
  ASSERT_FALSE(client);
  EXPECT_EQ(client.error().kind, ErrorKind::tool);
  EXPECT_NE(client.error().message.find("MCP server `scripted`"), std::string::npos)
      << client.error().message;
  EXPECT_NE(client.error().message.find("initialize"), std::string::npos) << client.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(StdioClient, AMissingCommandIsAClearError) {
  Harness h;
  McpServerSettings settings;
  settings.name = "ghost";
  settings.command = "/nonexistent/mcp-server";
  auto client = Client::connect(settings, h.options);
  ASSERT_FALSE(client);
  EXPECT_NE(client.error().message.find("ghost"), std::string::npos) << client.error().message;
  EXPECT_NE(client.error().message.find("/nonexistent/mcp-server"), std::string::npos)
      << client.error().message;
}

TEST(StdioClient, AServerThatExitsAtOnceFailsQuotingItsStderr) {
  Harness h;
  McpServerSettings settings;
  settings.name = "quitter";
  settings.command = "python3";
  settings.args = {"-c", "import sys; sys.stderr.write('no such flag: --frob\\n'); sys.exit(2)"};
  const auto start = std::chrono::steady_clock::now();
  auto client = Client::connect(settings, h.options);
  ASSERT_FALSE(client);
  EXPECT_NE(client.error().message.find("MCP server `quitter`"), std::string::npos)
      << client.error().message;
  EXPECT_NE(client.error().message.find("exited"), std::string::npos) << client.error().message;
  EXPECT_NE(client.error().message.find("no such flag: --frob"), std::string::npos)
      << client.error().message;
  // Found at its exit, not after the startup timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - start, settings.startup_timeout / 2);
}

// After the client, no process is left, not even a zombie (kill(pid, 0) finds nothing).
bool gone(int pid) {
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

TEST(StdioClient, ClosingStdinEndsAServerThatListens) {
  Harness h;
  auto client = h.connect(scripted_server());
  ASSERT_TRUE(client);
  const int pid = client->status().pid;
  ASSERT_GT(pid, 0);
  const auto start = std::chrono::steady_clock::now();
  client.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_TRUE(gone(pid));
}

TEST(StdioClient, AServerThatIgnoresStdinAndSigtermIsKilled) {
  Harness h;
  auto client = h.connect(scripted_server({"--stubborn"}));
  ASSERT_TRUE(client);
  const int pid = client->status().pid;
  ASSERT_GT(pid, 0);
  const auto start = std::chrono::steady_clock::now();
  client.reset();
  // Two grace periods of about 2 s: after stdin closed, after SIGTERM.
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(3900));
  EXPECT_TRUE(gone(pid));
}

TEST(StdioClient, NeitherOrBothOfCommandAndUrlIsAConfigError) {
  Harness h;
  McpServerSettings settings;
  settings.name = "none";
  settings.origin = "ralph.toml:4";
  auto client = Client::connect(settings, h.options);
  ASSERT_FALSE(client);
  EXPECT_EQ(client.error().kind, ErrorKind::config);
  EXPECT_NE(client.error().message.find("ralph.toml:4"), std::string::npos);
}

TEST(StdioClient, ListsEveryPageInTheServersOrderAndFilters) {
  Harness h;
  auto client = h.connect(scripted_server({"--page-size", "2"}));
  ASSERT_TRUE(client);
  const auto names = names_of(client->tools());
  EXPECT_EQ(names,
            (std::vector<std::string>{"echo", "progress", "wait_cancel", "hang", "die", "fail",
                                      "structured", "image", "add_tool", "ask_client", "env", "cwd",
                                      "needs_input", "jam", "fail_rpc"}));
  auto settings = scripted_server({"--page-size", "5"});
  settings.enabled_tools = {"echo", "fail", "cwd"};
  settings.disabled_tools = {"fail"};
  auto filtered = h.connect(settings);
  ASSERT_TRUE(filtered);
  EXPECT_EQ(names_of(filtered->tools()), (std::vector<std::string>{"echo", "cwd"}));
}

TEST(StdioClient, ListsAgainAfterTheServerSaysItsListChanged) {
  Harness h;
  auto client = h.connect(scripted_server());
  ASSERT_TRUE(client);
  EXPECT_EQ(names_of(client->tools()).back(), "fail_rpc");
  EXPECT_EQ(client->call("add_tool", "{}", {}).text, "added");
  EXPECT_EQ(names_of(client->tools()).back(), "extra");
}

TEST(StdioClient, IgnoresLinesThatAreNotJsonRpc) {
  Harness h;
  auto client = h.connect(scripted_server({"--noise"}));
  ASSERT_TRUE(client);
  EXPECT_EQ(client->call("echo", R"({"text":"x"})", {}).text, "Echo: x");
  const std::lock_guard lock(h.mutex);
  ASSERT_FALSE(h.stderr_lines.empty());
  EXPECT_NE(h.stderr_lines.front().find("this is not JSON-RPC"), std::string::npos);
}

TEST(StdioClient, ReportsProgressOnTheCallingThread) {
  Harness h;
  auto client = h.connect(scripted_server({"--log", h.log_option()}));
  ASSERT_TRUE(client);
  std::vector<CallProgress> seen;
  const auto caller = std::this_thread::get_id();
  CallOptions options;
  options.on_progress = [&](const CallProgress& p) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    seen.push_back(p);
  };
  const CallResult result = client->call("progress", "{}", options);
  EXPECT_EQ(result.text, "done");
  ASSERT_EQ(seen.size(), 3U);
  EXPECT_EQ(seen[2].progress, 3);
  EXPECT_EQ(seen[2].total, 3);
  EXPECT_EQ(seen[0].message, "step 1");
}

TEST(StdioClient, ACancelTellsTheServerAndTheConnectionStaysUsable) {
  Harness h;
  auto client = h.connect(scripted_server({"--log", h.log_option()}));
  ASSERT_TRUE(client);
  CallOptions options;
  options.on_progress = [&](const CallProgress&) { options.cancel.cancel(); };
  const CallResult cancelled = client->call("wait_cancel", "{}", options);
  EXPECT_TRUE(cancelled.is_error);
  EXPECT_TRUE(cancelled.cancelled);
  EXPECT_NE(cancelled.text.find("cancelled"), std::string::npos);
  // The stray progress the server sends after the cancel reaches nobody.
  EXPECT_EQ(client->call("echo", R"({"text":"after"})", {}).text, "Echo: after");
  bool told = false;
  for (const auto& message : h.received()) {
    told = told || message.value("method", "") == "notifications/cancelled";
  }
  EXPECT_TRUE(told);
}

TEST(StdioClient, ATimeoutIsAnErrorResultAndTheServerIsTold) {
  Harness h;
  auto client = h.connect(scripted_server({"--log", h.log_option()}));
  ASSERT_TRUE(client);
  CallOptions options;
  options.timeout = std::chrono::milliseconds(300);
  const CallResult result = client->call("hang", "{}", options);
  EXPECT_TRUE(result.is_error);
  EXPECT_TRUE(result.timed_out);
  EXPECT_NE(result.text.find("300 ms"), std::string::npos) << result.text;
  EXPECT_EQ(client->call("echo", R"({"text":"still"})", {}).text, "Echo: still");
  const auto methods = h.methods();
  EXPECT_NE(std::find(methods.begin(), methods.end(), "notifications/cancelled"), methods.end());
}

TEST(StdioClient, ErrorResultsAndUnknownToolsAreErrors) {
  Harness h;
  auto client = h.connect(scripted_server());
  ASSERT_TRUE(client);
  const CallResult failed = client->call("fail", "{}", {});
  EXPECT_TRUE(failed.is_error);
  EXPECT_EQ(failed.text, "it failed");
  const CallResult unknown = client->call("nope", "{}", {});
  EXPECT_TRUE(unknown.is_error);
  EXPECT_NE(unknown.text.find("nope"), std::string::npos);
  const CallResult bad_arguments = client->call("echo", "[1]", {});
  EXPECT_TRUE(bad_arguments.is_error);
  EXPECT_NE(bad_arguments.text.find("not a JSON object"), std::string::npos);
}

TEST(StdioClient, PrefersStructuredContentAndPlaceholdersImages) {
  Harness h;
  auto client = h.connect(scripted_server());
  ASSERT_TRUE(client);
  EXPECT_EQ(client->call("structured", "{}", {}).text, R"({"sum":5})");
  const std::string image = client->call("image", "{}", {}).text;
  EXPECT_EQ(image.rfind("a picture:\n[image content: image/png", 0), 0U) << image;
  EXPECT_EQ(image.find("aGVsbG8="), std::string::npos);
}

TEST(StdioClient, AnswersTheServersPingAndRefusesItsOtherRequests) {
  Harness h;
  auto client = h.connect(scripted_server());
  ASSERT_TRUE(client);
  const std::string text = client->call("ask_client", "{}", {}).text;
  const auto answers = nlohmann::json::parse(text, nullptr, false);
  ASSERT_TRUE(answers.is_array() && answers.size() == 2) << text;
  EXPECT_EQ(answers[0].value("result", nlohmann::json()), nlohmann::json::object()) << text;
  EXPECT_EQ(answers[1].value("error", nlohmann::json::object()).value("code", 0), -32601) << text;
}

TEST(StdioClient, GivesTheServerOnlyPathHomeAndTheListedVariables) {
  Harness h;
  auto settings = scripted_server();
  settings.env = {{"GIVEN", "yes"}};
  settings.env_vars = {"PASSED"};
  h.options.getenv = [](const char* name) -> const char* {
    const std::string n = name;
    if (n == "PASSED") {
      return "through";
    }
    if (n == "SECRET") {
      return "leaked";
    }
    return std::getenv(name);
  };
  auto client = h.connect(settings);
  ASSERT_TRUE(client);
  EXPECT_EQ(client->call("env", R"({"name":"GIVEN"})", {}).text, "yes");
  EXPECT_EQ(client->call("env", R"({"name":"PASSED"})", {}).text, "through");
  EXPECT_EQ(client->call("env", R"({"name":"SECRET"})", {}).text, "<unset>");
  EXPECT_NE(client->call("env", R"({"name":"PATH"})", {}).text, "<unset>");
  EXPECT_EQ(client->call("cwd", "{}", {}).text, std::filesystem::canonical(h.dir.path()).string());
}

TEST(StdioClient, RestartsADeadServerOnceThenFailsClearly) {
  Harness h;
  auto client = h.connect(scripted_server({"--log", h.log_option()}));
  ASSERT_TRUE(client);
  const int first_pid = client->status().pid;
  const CallResult died = client->call("die", "{}", {});
  EXPECT_TRUE(died.is_error);
  EXPECT_NE(died.text.find("MCP server `scripted` exited"), std::string::npos) << died.text;
  EXPECT_NE(died.text.find("dying as asked"), std::string::npos) << died.text;
  EXPECT_EQ(client->status().state, ServerState::stopped);
  EXPECT_EQ(client->status().pid, 0);
  EXPECT_NE(client->status().last_error.find("exited during the call"), std::string::npos);
  EXPECT_EQ(client->call("echo", R"({"text":"again"})", {}).text, "Echo: again");
  EXPECT_EQ(client->status().state, ServerState::running);
  EXPECT_EQ(client->status().restarts, 1);
  EXPECT_NE(client->status().pid, first_pid);
  // The era found the first time is kept: the restarted server is not probed again.
  const auto methods = h.methods();
  EXPECT_EQ(std::count(methods.begin(), methods.end(), "server/discover"), 1);
  EXPECT_EQ(std::count(methods.begin(), methods.end(), "initialize"), 2);
  EXPECT_TRUE(client->call("die", "{}", {}).is_error);
  const CallResult after = client->call("echo", R"({"text":"x"})", {});
  EXPECT_TRUE(after.is_error);
  EXPECT_NE(after.text.find("MCP server `scripted`"), std::string::npos) << after.text;
  EXPECT_NE(after.text.find("after its one restart"), std::string::npos) << after.text;
  EXPECT_NE(after.text.find("dying as asked"), std::string::npos) << after.text;
  EXPECT_EQ(client->status().state, ServerState::failed);
}

TEST(StdioClient, ConcurrentCallsAfterADeathShareOneRestart) {
  Harness h;
  auto client = h.connect(scripted_server());
  ASSERT_TRUE(client);
  EXPECT_TRUE(client->call("die", "{}", {}).is_error);
  std::vector<std::string> answers(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    threads.emplace_back([&, i] {
      answers[i] = client->call("echo", R"({"text":")" + std::to_string(i) + "\"}", {}).text;
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  for (std::size_t i = 0; i < answers.size(); ++i) {
    EXPECT_EQ(answers[i], "Echo: " + std::to_string(i));
  }
  EXPECT_EQ(client->status().restarts, 1);
  EXPECT_EQ(client->status().state, ServerState::running);
}

TEST(StdioClient, AServerRequestWhileAWriteIsStuckDoesNotDeadlock) {
  Harness h;
  auto settings = scripted_server();
  settings.tool_timeout = std::chrono::seconds(30);
  auto client = h.connect(settings);
  ASSERT_TRUE(client);
  const std::string big(16U << 20, 'b');
  std::string big_answer;
  std::thread second;
  CallOptions options;
  // The server asks its question only once this second, big request has begun to arrive.
  options.on_progress = [&](const CallProgress&) {
    second = std::thread(
        [&] { big_answer = client->call("echo", R"({"text":")" + big + "\"}", {}).text; });
  };
  const CallResult jam = client->call("jam", "{}", options);
  ASSERT_TRUE(second.joinable());
  second.join();
  EXPECT_EQ(jam.text, "unjammed");
  EXPECT_EQ(big_answer.size(), big.size() + std::string("Echo: ").size());
}

// Counts the waits it is asked for: a fiber's Waiter parks the fiber there instead.
class CountingWaiter final : public Waiter {
public:
  int poll(pollfd* fds, std::size_t count, std::chrono::milliseconds timeout) override {
    ++calls;
    return ::poll(fds, count, static_cast<int>(timeout.count()));
  }
  std::atomic<int> calls{0};
};

TEST(StdioClient, WaitsThroughTheGivenWaiter) {
  Harness h;
  CountingWaiter waiter;
  h.options.waiter = &waiter;
  auto client = h.connect(scripted_server());
  ASSERT_TRUE(client);
  const int after_connect = waiter.calls.load();
  EXPECT_GT(after_connect, 0);
  CallOptions options;
  options.timeout = std::chrono::milliseconds(200);
  EXPECT_TRUE(client->call("hang", "{}", options).timed_out);
  EXPECT_GT(waiter.calls.load(), after_connect);
}

TEST(StdioClient, ACallWaitsThroughItsOwnWaiterWhenGivenOne) {
  Harness h;
  CountingWaiter owner;
  h.options.waiter = &owner;
  auto settings = scripted_server();
  settings.tool_timeout = std::chrono::milliseconds(300);
  auto made = Client::connect(settings, h.options);
  ASSERT_TRUE(made) << made.error().message;
  std::shared_ptr<Client> client = *std::move(made);
  const int owner_calls = owner.calls.load();
  CountingWaiter caller;
  CallOptions options;
  options.waiter = &caller;
  EXPECT_TRUE(client->call("hang", "{}", options).timed_out);
  EXPECT_GT(caller.calls.load(), 0);
  EXPECT_EQ(owner.calls.load(), owner_calls);

  // The tool adapter of a session sharing the client passes its own.
  CountingWaiter session;
  const auto tools = client->tools();
  const auto hang = std::find_if(tools.begin(), tools.end(),
                                 [](const RemoteTool& t) { return t.name == "hang"; });
  ASSERT_NE(hang, tools.end());
  auto tool = make_mcp_tool(client, "scripted", *hang, 1000, &session, nullptr);
  tools::ToolContext context;
  context.workspace = h.dir.path();
  EXPECT_TRUE(tool->run("{}", context).timed_out);
  EXPECT_GT(session.calls.load(), 0);
  EXPECT_EQ(owner.calls.load(), owner_calls);
}

} // namespace
} // namespace ralph::mcp
