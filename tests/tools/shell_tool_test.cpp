#include "support/temp_dir.h"
#include "tool_harness.h"

#include "ralph/core/json.h"
#include "ralph/tools/builtin_tools.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <thread>

namespace ralph::tools {
namespace {

using namespace std::chrono_literals;
using ralph::testing::TempDir;
using testing::call;
using testing::eventually;
using testing::process_is_dead;
using testing::read_pid;

std::string command(const std::string& text, std::optional<double> timeout = std::nullopt) {
  nlohmann::json args = {{"command", text}};
  if (timeout) {
    args["timeout"] = *timeout;
  }
  return args.dump();
}

class ShellToolTest : public ::testing::Test {
protected:
  ToolResult run(const std::string& arguments, CancelToken cancel = {}) {
    return call(*m_tool, m_dir.path(), arguments, std::move(cancel));
  }

  TempDir m_dir;
  PosixProcessRunner m_runner;
  ToolSettings m_options{.shell_timeout = std::chrono::seconds(60), .output_limit = 2000};
  std::unique_ptr<Tool> m_tool = make_shell_tool(m_options, m_runner);
};

TEST_F(ShellToolTest, ReportsOutputAndExitCodeOnItsOwnLine) {
  const ToolResult result = run(command("echo hello"));
  EXPECT_FALSE(result.is_error);
  EXPECT_EQ(result.content, "hello\nexit code: 0");
  EXPECT_EQ(result.exit_code, 0);
}

TEST_F(ShellToolTest, NonzeroExitIsAnOutcomeNotAnError) {
  const ToolResult result = run(command("echo failing >&2; exit 2"));
  EXPECT_FALSE(result.is_error);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.content, "failing\nexit code: 2");
}

TEST_F(ShellToolTest, SaysWhenThereIsNoOutput) {
  EXPECT_EQ(run(command("true")).content, "(no output)\nexit code: 0");
}

TEST_F(ShellToolTest, RunsInTheWorkspace) {
  m_dir.write("marker.txt", "here");
  EXPECT_EQ(run(command("cat marker.txt")).content, "here\nexit code: 0");
}

TEST_F(ShellToolTest, CapsOutputWithAMarkerAndStillReportsTheExitCode) {
  const ToolResult result = run(command("seq 1 100000; exit 4"));
  EXPECT_TRUE(result.truncated);
  EXPECT_FALSE(result.is_error);
  EXPECT_NE(result.content.find("bytes omitted ...]"), std::string::npos);
  EXPECT_EQ(result.content.substr(0, 4), "1\n2\n");
  const std::string ending = "100000\nexit code: 4";
  EXPECT_EQ(result.content.substr(result.content.size() - ending.size()), ending);
  EXPECT_LT(result.content.size(), 2200u);
}

TEST_F(ShellToolTest, TimeoutKillsTheWholeProcessGroupAndIsAnError) {
  const ToolResult result =
      run(command("echo started; sleep 1000 & echo $! > grandchild; wait", 1));
  EXPECT_TRUE(result.is_error);
  EXPECT_TRUE(result.timed_out);
  EXPECT_FALSE(result.exit_code.has_value());
  EXPECT_NE(result.content.find("started\n"), std::string::npos);
  EXPECT_NE(result.content.find("timed out after 1 s"), std::string::npos);
  const pid_t grandchild = read_pid(m_dir.path() / "grandchild");
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(eventually([&] { return process_is_dead(grandchild); }));
}

TEST_F(ShellToolTest, RequestedTimeoutIsCappedByTheConfiguredMaximum) {
  ToolSettings options{.shell_timeout = std::chrono::seconds(1), .output_limit = 2000};
  auto tool = make_shell_tool(options, m_runner);
  const ToolResult result = call(*tool, m_dir.path(), command("sleep 1000", 5000));
  EXPECT_TRUE(result.timed_out);
  EXPECT_NE(result.content.find("timed out after 1 s"), std::string::npos);
}

TEST_F(ShellToolTest, CancellationKillsTheGroupAndReturns) {
  CancelToken cancel;
  std::thread canceller([&] {
    eventually([&] { return read_pid(m_dir.path() / "grandchild") > 0; });
    cancel.cancel();
  });
  const ToolResult result = run(command("sleep 1000 & echo $! > grandchild; wait"), cancel);
  canceller.join();
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("cancelled"), std::string::npos);
  EXPECT_TRUE(eventually([&] { return process_is_dead(read_pid(m_dir.path() / "grandchild")); }));
}

TEST_F(ShellToolTest, ReportsTheSignalThatKilledTheCommand) {
  const ToolResult result = run(command("kill -TERM $$"));
  EXPECT_FALSE(result.exit_code.has_value());
  EXPECT_NE(result.content.find("killed by signal 15 (SIGTERM)"), std::string::npos);
}

TEST_F(ShellToolTest, InvalidUtf8OutputIsReplaced) {
  const ToolResult result = run(command("printf 'a\\377b'"));
  EXPECT_EQ(result.content, "a\xEF\xBF\xBD"
                            "b\nexit code: 0");
}

TEST_F(ShellToolTest, MalformedArgumentsAreErrorResults) {
  EXPECT_TRUE(run("{\"command\": ").is_error);
  EXPECT_TRUE(run("{}").is_error);
  EXPECT_TRUE(run(R"({"command": ["ls"]})").is_error);
  EXPECT_TRUE(run(R"({"command": "   "})").is_error);
  EXPECT_TRUE(run(R"({"command": "true", "timeout": -1})").is_error);
  EXPECT_TRUE(run(R"({"command": "true", "timeout": "soon"})").is_error);
  EXPECT_NE(run("{}").content.find("`command` is required"), std::string::npos);
}

TEST_F(ShellToolTest, SpecDescribesParametersAsJsonSchema) {
  const ToolSpec& spec = m_tool->spec();
  EXPECT_EQ(spec.name, "shell");
  const auto schema = parse_json(spec.parameters, "schema");
  ASSERT_TRUE(schema.has_value());
  EXPECT_EQ(schema->at("required"), nlohmann::json::array({"command"}));
  EXPECT_EQ(schema->at("properties").at("timeout").at("type"), "number");
}

} // namespace
} // namespace ralph::tools
