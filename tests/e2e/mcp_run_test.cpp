// MCP servers' tools inside ralph's loop, end to end: the real binary, the real reference MCP
// servers from npm (tests/mcp), the fake provider scripted to call them.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "mcp/server_process.h"
#include "mcp_process.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

std::filesystem::path mcp_bin_dir() {
  return mcp_tests_dir() / ".bin";
}

bool file_has(const std::filesystem::path& file, const std::string& needle) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str().find(needle) != std::string::npos;
}

class McpRun : public ::testing::Test {
protected:
  void SetUp() override {
    filesystem_server = mcp_bin_dir() / "mcp-server-filesystem";
    if (!std::filesystem::exists(filesystem_server)) {
      const std::string why = filesystem_server.string() +
                              " is missing (run `make mcp-tests`, or set RALPH_MCP_TESTS_DIR)";
      if (std::getenv("RALPH_REQUIRE_AGENT_CLIS") != nullptr) {
        FAIL() << why;
      }
      GTEST_SKIP() << why;
    }
  }

  std::vector<std::string> run_args(std::vector<std::string> extra) const {
    std::vector<std::string> args{"run",
                                  "--model",
                                  "openai-compat/test-model",
                                  "--base-url",
                                  server.base_url() + "/v1",
                                  "--workspace",
                                  workspace.path().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  void write_config(const std::string& toml) { workspace.write(".ralph/config.toml", toml); }

  std::string filesystem_toml(const std::string& name = "fs", const std::string& more = "") const {
    return "[mcp.servers." + name + "]\ncommand = \"" + filesystem_server.string() +
           "\"\nargs = [\"" + workspace.path().string() + "\"]\n" + more;
  }

  std::filesystem::path filesystem_server;
  FakeProviderServer server;
  TempDir workspace;
  TempDir cwd;
};

TEST_F(McpRun, TheAgentWritesThroughAnMcpToolAndTheVerifierSeesTheFile) {
  write_config(filesystem_toml());
  const std::string target = (workspace.path() / "hello.txt").string();
  server.push(tool_turn("mcp__fs__write_file", {{"path", target}, {"content", "from mcp\n"}}));
  server.push(text_turn("Wrote hello.txt."));

  const auto result = run_ralph(
      run_args({"write hello.txt", "--json", "--verify-cmd", "grep -q 'from mcp' hello.txt"}),
      cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(workspace.read("hello.txt"), "from mcp\n");
  const json out = json::parse(result.out);
  EXPECT_EQ(out["status"], "completed");
  EXPECT_EQ(out["verified"], true);
  // The model was offered the server's tools after the built-in ones, named mcp__fs__TOOL.
  const json first = json::parse(server.requests().at(0).body);
  std::vector<std::string> names;
  for (const json& tool : first["tools"]) {
    names.push_back(tool["function"]["name"]);
  }
  EXPECT_EQ(names.front(), "shell");
  EXPECT_THAT(names, ::testing::Contains("mcp__fs__write_file"));
  EXPECT_THAT(names, ::testing::Contains("mcp__fs__read_text_file"));
  // The tool's result reached the model as a tool message.
  const json second = json::parse(server.requests().at(1).body);
  EXPECT_EQ(second["messages"].back()["role"], "tool");
  EXPECT_THAT(second["messages"].back()["content"].get<std::string>(), Not(HasSubstr("Error")));
}

TEST_F(McpRun, AnErrorFromTheServerReachesTheModelAsAToolError) {
  write_config(filesystem_toml());
  // Outside the allowed folder: the server refuses, and the model is told so.
  server.push(
      tool_turn("mcp__fs__write_file", {{"path", "/etc/ralph-mcp-test"}, {"content", "x"}}));
  server.push(text_turn("Could not write."));

  const std::filesystem::path events = cwd.path() / "events.ndjson";
  const auto result =
      run_ralph(run_args({"write", "--json", "--max-iterations", "1", "--events", events.string()}),
                cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(std::filesystem::exists("/etc/ralph-mcp-test"));
  EXPECT_TRUE(file_has(events, "\"is_error\":true")) << "recorded as a failed call";
  const json second = json::parse(server.requests().at(1).body);
  EXPECT_THAT(second["messages"].back()["content"].get<std::string>(),
              HasSubstr("outside allowed directories"));
}

TEST_F(McpRun, AProjectMcpJsonIsReadWithItsVariablesExpanded) {
  workspace.write(".mcp.json",
                  R"({"mcpServers": {"files": {"command": "${MCP_BIN}/mcp-server-filesystem",
                                               "args": ["${MCP_ROOT}"]}}})");
  const std::string target = (workspace.path() / "note.txt").string();
  server.push(tool_turn("mcp__files__write_file", {{"path", target}, {"content", "ok"}}));
  server.push(text_turn("Done."));

  const auto result =
      run_ralph(run_args({"note", "--json"}), cwd.path(),
                {{"MCP_BIN", mcp_bin_dir().string()}, {"MCP_ROOT", workspace.path().string()}});

  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(workspace.read("note.txt"), "ok");
}

TEST_F(McpRun, ARequiredServerThatCannotStartStopsTheRunBeforeTheModelIsCalled) {
  write_config("[mcp.servers.gone]\ncommand = \"/nonexistent/mcp-server\"\nrequired = true\n");
  server.push(text_turn("never asked"));

  const auto result = run_ralph(run_args({"anything", "--json"}), cwd.path());

  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_THAT(result.err, HasSubstr("MCP server gone"));
  EXPECT_THAT(result.err, HasSubstr("required"));
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(McpRun, AServerNotRequiredThatCannotStartIsAWarningAndTheRunGoesOn) {
  write_config("[mcp.servers.gone]\ncommand = \"/nonexistent/mcp-server\"\n");
  server.push(text_turn("Done without it."));

  const auto result = run_ralph(run_args({"anything", "--json"}), cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("MCP server gone"));
  const json first = json::parse(server.requests().at(0).body);
  for (const json& tool : first["tools"]) {
    EXPECT_THAT(tool["function"]["name"].get<std::string>(), Not(HasSubstr("mcp__")));
  }
}

TEST_F(McpRun, McpListAndCheckShowEachServersStateEraAndTools) {
  write_config(filesystem_toml("fs") +
               "\n[mcp.servers.gone]\ncommand = \"/nonexistent/mcp-server\"\n"
               "\n[mcp.servers.off]\ncommand = \"x\"\nenabled = false\n");

  const auto list =
      run_ralph({"mcp", "list", "--workspace", workspace.path().string()}, cwd.path());
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("fs"));
  EXPECT_THAT(list.out, HasSubstr("running"));
  EXPECT_THAT(list.out, HasSubstr("legacy"));
  EXPECT_THAT(list.out, HasSubstr("failed"));
  EXPECT_THAT(list.out, HasSubstr("disabled"));

  const auto check =
      run_ralph({"mcp", "check", "--json", "--workspace", workspace.path().string()}, cwd.path());
  EXPECT_EQ(check.exit_code, 1) << "a server failed: " << check.out;
  const json out = json::parse(check.out);
  ASSERT_EQ(out["servers"].size(), 3U);
  const json& fs = out["servers"][0];
  EXPECT_EQ(fs["name"], "fs");
  EXPECT_EQ(fs["state"], "running");
  EXPECT_EQ(fs["era"], "legacy");
  EXPECT_EQ(fs["protocol_version"], "2025-11-25");
  EXPECT_GE(fs["tools"].size(), 10U);
  const json& gone = out["servers"][1];
  EXPECT_EQ(gone["state"], "failed");
  EXPECT_FALSE(gone["last_error"].get<std::string>().empty());
  EXPECT_EQ(out["servers"][2]["state"], "disabled");

  const auto one =
      run_ralph({"mcp", "check", "fs", "--workspace", workspace.path().string()}, cwd.path());
  EXPECT_EQ(one.exit_code, 0) << one.out << one.err;
  EXPECT_THAT(one.out, HasSubstr("mcp__fs__write_file"));

  const auto unknown =
      run_ralph({"mcp", "check", "nope", "--workspace", workspace.path().string()}, cwd.path());
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("no MCP server named 'nope'"));
}

TEST_F(McpRun, ABadServerDeclarationIsAConfigErrorNamingFileAndLine) {
  write_config("model = \"x/y\"\n\n[mcp.servers.fs]\ncomand = \"npx\"\n");

  const auto result = run_ralph(run_args({"anything"}), cwd.path());

  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("config.toml:3: mcp.servers.fs.comand: unknown field"));
  EXPECT_TRUE(server.requests().empty());
}

// The scripted stdio server of the client's tests, logging every message it gets to `log`.
std::string scripted_server_toml(const std::string& name, const std::filesystem::path& log,
                                 const std::string& more = "") {
  return "[mcp.servers." + name +
         "]\ncommand = \"python3\"\nargs = [\"" RALPH_SOURCE_DIR
         "/tests/mcp/fixtures/scripted_server.py\", \"--log\", \"" +
         log.string() + "\"]\n" + more;
}

TEST_F(McpRun, AStdioServerGetsOnlyTheVariablesItIsGivenAndItsSecretsAreRedacted) {
  const std::filesystem::path log = cwd.path() / "messages.ndjson";
  const std::filesystem::path events = cwd.path() / "events.ndjson";
  write_config(
      scripted_server_toml("s", log, "env = { GIVEN = \"yes\" }\nenv_vars = [\"PASSED_TOKEN\"]\n"));
  for (const char* name : {"SOME_API_TOKEN", "GIVEN", "PASSED_TOKEN", "NOT_PASSED"}) {
    server.push(tool_turn("mcp__s__env", {{"name", name}}));
  }
  server.push(text_turn("Looked."));

  const auto result =
      run_ralph(run_args({"look", "--json", "--events", events.string()}), cwd.path(),
                {{"SOME_API_TOKEN", "tok-1234567890"},
                 {"PASSED_TOKEN", "passed-secret-value"},
                 {"NOT_PASSED", "kept-away"}});

  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 5U);
  const auto tool_result = [&](std::size_t i) {
    return json::parse(requests.at(i).body)["messages"].back()["content"].get<std::string>();
  };
  EXPECT_THAT(tool_result(1), HasSubstr("<unset>")) << "ralph's secrets never reach a server";
  EXPECT_THAT(tool_result(2), HasSubstr("yes"));
  EXPECT_THAT(tool_result(3), HasSubstr("passed-secret-value")) << "passed on by name";
  EXPECT_THAT(tool_result(4), HasSubstr("<unset>"));
  // What ralph writes of the call's result is redacted like any other output.
  EXPECT_FALSE(file_has(events, "passed-secret-value"));
  EXPECT_TRUE(file_has(events, "[REDACTED]"));
  const json session = show_session(json::parse(result.out)["session_id"], workspace.path());
  EXPECT_THAT(session.dump(), Not(HasSubstr("passed-secret-value")));
}

TEST_F(McpRun, ABatchSharesAShareableServerAndStartsOneOtherwise) {
  const auto count = [](const std::filesystem::path& log, const std::string& method) {
    std::ifstream in(log);
    int n = 0;
    for (std::string line; std::getline(in, line);) {
      n += line.find("\"" + method + "\"") != std::string::npos ? 1 : 0;
    }
    return n;
  };
  const std::filesystem::path shared_log = cwd.path() / "shared.ndjson";
  const std::filesystem::path own_log = cwd.path() / "own.ndjson";
  write_config(scripted_server_toml("shared", shared_log, "shareable = true\n") + "\n" +
               scripted_server_toml("own", own_log));
  std::string goals;
  for (const char* id : {"a", "b", "c"}) {
    goals +=
        json{{"id", id}, {"goal", std::string("goal ") + id}, {"verify", "true"}}.dump() + "\n";
  }
  // Each goal calls both servers' echo once, then answers: the calls of the three sessions reach
  // the shared process from their own fibers.
  server.set_responder([](const RecordedRequest& request) -> std::optional<FakeTurn> {
    const json messages = json::parse(request.body)["messages"];
    int results = 0;
    for (const json& message : messages) {
      results += message["role"] == "tool" ? 1 : 0;
    }
    if (results == 0) {
      return tool_turn("mcp__shared__echo", {{"text", "one"}});
    }
    if (results == 1) {
      return tool_turn("mcp__own__echo", {{"text", "two"}});
    }
    return text_turn("done");
  });
  const std::filesystem::path goals_file = cwd.write("goals.jsonl", goals);

  const auto result = run_ralph(
      {"batch", goals_file.string(), "--model", "openai-compat/test-model", "--base-url",
       server.base_url() + "/v1", "--workspace", workspace.path().string(), "--concurrency", "3"},
      cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_EQ(count(shared_log, "server/discover"), 1);
  EXPECT_EQ(count(own_log, "server/discover"), 3);
  EXPECT_EQ(count(shared_log, "tools/call"), 3);
  EXPECT_EQ(count(own_log, "tools/call"), 3);
}

TEST_F(McpRun, CtrlCDuringALongCallShowsItsProgressAndCancelsItOnTheServer) {
  const std::filesystem::path log = cwd.path() / "messages.ndjson";
  const std::filesystem::path events = cwd.path() / "events.ndjson";
  write_config(scripted_server_toml("s", log));
  server.push(tool_turn("mcp__s__wait_cancel", json::object()));
  server.push(text_turn("unused"));

  RalphProcess process(run_args({"wait", "--events", events.string()}), cwd.path());
  ASSERT_TRUE(eventually([&] { return file_has(events, "\"tool_progress\""); }));
  process.signal(SIGINT);
  const auto result = process.wait();

  EXPECT_EQ(result.exit_code, 130) << result.err;
  EXPECT_TRUE(file_has(log, "\"notifications/cancelled\"")) << "the server was told";
  EXPECT_TRUE(file_has(events, "\"name\":\"mcp__s__wait_cancel\""));
}

TEST_F(McpRun, ACallThatOutlivesTheTimeBudgetIsCancelledOnTheServer) {
  const std::filesystem::path log = cwd.path() / "messages.ndjson";
  write_config(scripted_server_toml("s", log));
  server.push(tool_turn("mcp__s__wait_cancel", json::object()));
  server.push(text_turn("unused"));

  const auto result = run_ralph(run_args({"wait", "--json", "--time-budget", "2s"}), cwd.path());

  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_EQ(json::parse(result.out)["status"], "budget_exhausted");
  EXPECT_TRUE(file_has(log, "\"notifications/cancelled\""));
}

// server-everything's streamable HTTP transport on a free port, as a `url` server.
class McpHttpRun : public McpRun {
protected:
  void SetUp() override {
    McpRun::SetUp();
    if (IsSkipped() || HasFailure()) {
      return;
    }
    const std::filesystem::path bin = mcp_bin_dir() / "mcp-server-everything";
    const int port = free_port();
    http_server = std::make_unique<ServerProcess>(
        std::vector<std::string>{bin.string(), "streamableHttp"},
        std::vector<std::string>{"PORT=" + std::to_string(port),
                                 "PATH=" + bin.parent_path().string() + ":" + std::getenv("PATH")});
    ASSERT_TRUE(http_server->wait_for("listening on port", std::chrono::seconds(30)))
        << http_server->output();
    write_config("[mcp.servers.everything]\nurl = \"http://127.0.0.1:" + std::to_string(port) +
                 "/mcp\"\nstartup_timeout_sec = 30\n");
    // Every session adds 2 and 3 over HTTP, then answers.
    server.set_responder([](const RecordedRequest& request) -> std::optional<FakeTurn> {
      if (json::parse(request.body)["messages"].back()["role"] == "tool") {
        return text_turn("added");
      }
      return tool_turn("mcp__everything__get-sum", {{"a", 2}, {"b", 3}});
    });
  }

  // The tool results the model was given.
  std::vector<std::string> tool_results() const {
    std::vector<std::string> out;
    for (const auto& request : server.requests()) {
      const json last = json::parse(request.body)["messages"].back();
      if (last["role"] == "tool") {
        out.push_back(last["content"]);
      }
    }
    return out;
  }

  std::unique_ptr<ServerProcess> http_server;
};

TEST_F(McpHttpRun, ARunCallsAToolOfAStreamableHttpServer) {
  const auto result = run_ralph(run_args({"add", "--json"}), cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto results = tool_results();
  ASSERT_EQ(results.size(), 1U);
  EXPECT_THAT(results[0], HasSubstr("5"));
  EXPECT_THAT(results[0], Not(HasSubstr("rror")));
}

TEST_F(McpHttpRun, BatchGoalsCallItFromTheirFibers) {
  std::string goals;
  for (const char* id : {"a", "b", "c"}) {
    goals += json{{"id", id}, {"goal", std::string("add ") + id}, {"verify", "true"}}.dump() + "\n";
  }
  const std::filesystem::path goals_file = cwd.write("goals.jsonl", goals);

  const auto result = run_ralph(
      {"batch", goals_file.string(), "--model", "openai-compat/test-model", "--base-url",
       server.base_url() + "/v1", "--workspace", workspace.path().string(), "--concurrency", "3"},
      cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const auto results = tool_results();
  ASSERT_EQ(results.size(), 3U);
  for (const std::string& text : results) {
    EXPECT_THAT(text, HasSubstr("5"));
    EXPECT_THAT(text, Not(HasSubstr("rror")));
  }
}

} // namespace
} // namespace ralph::testing
