// The real Codex CLI in a temp workspace, its model calls answered by the fake provider server.
#include "codex_cli.h"
#include "e2e_support.h"
#include "support/temp_dir.h"

#include "ralph/tools/process_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace ralph::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// The JSON lines of codex's stdout (a test failure for a line that is not JSON).
std::vector<json> events_of(const std::string& out) {
  std::vector<json> events;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) {
      continue;
    }
    json event = json::parse(line, nullptr, false);
    EXPECT_FALSE(event.is_discarded()) << "not JSON: " << line;
    events.push_back(std::move(event));
  }
  return events;
}

// The first event of `type` whose item (when `item_type` is given) has that type; null if none.
json find_event(const std::vector<json>& events, std::string_view type,
                std::string_view item_type = {}) {
  for (const json& event : events) {
    if (event.value("type", "") != type) {
      continue;
    }
    if (item_type.empty() ||
        (event.contains("item") && event["item"].value("type", "") == item_type)) {
      return event;
    }
  }
  return nullptr;
}

// The input items of a recorded request that have `type`.
std::vector<json> input_items(const RecordedRequest& request, std::string_view type) {
  std::vector<json> out;
  const json body = json::parse(request.body);
  for (const json& item : body.at("input")) {
    if (item.value("type", "") == type) {
      out.push_back(item);
    }
  }
  return out;
}

class CodexCliTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto found = codex_binary();
    if (!found) {
      const std::string message = "codex is not installed in " + agent_clis_dir().string() +
                                  ": run `make agent-clis` (or set "
                                  "RALPH_AGENT_CLIS_DIR)";
      if (agent_clis_required()) {
        FAIL() << message << "; RALPH_REQUIRE_AGENT_CLIS=1 makes this a failure";
      }
      GTEST_SKIP() << message;
    }
    binary = *found;
    workspace = root.path() / "workspace";
    std::filesystem::create_directories(workspace);
    home = write_codex_home(root.path(), server.base_url());
  }

  tools::ProcessResult codex(const std::vector<std::string>& extra, std::string prompt) {
    tools::ProcessSpec spec;
    spec.argv = codex_exec_argv(binary, workspace, extra);
    spec.cwd = workspace;
    spec.env = home.env;
    spec.stdin_data = std::move(prompt);
    spec.merge_stderr = false;
    spec.timeout = std::chrono::minutes(2);
    tools::PosixProcessRunner runner;
    auto result = runner.run(spec, CancelToken{});
    EXPECT_TRUE(result) << result.error().message;
    return result ? *result : tools::ProcessResult{};
  }

  // Runs one scripted turn: a shell call that writes proof.txt, then a final message.
  std::vector<json> run_first_turn() {
    server.push(codex_shell_turn("echo made-by-codex > proof.txt && pwd"));
    server.push(text_turn("Proof written."));
    const tools::ProcessResult result = codex({}, "Write the proof file.");
    EXPECT_EQ(result.exit_code, 0) << result.output << result.err_output;
    return events_of(result.output);
  }

  TempDir root;
  FakeProviderServer server;
  std::filesystem::path binary;
  std::filesystem::path workspace;
  CodexHome home;
};

TEST_F(CodexCliTest, RunsTheShellCallTheFakeServerAsksForInTheWorkspace) {
  const std::vector<json> events = run_first_turn();

  EXPECT_EQ(root.read("workspace/proof.txt"), "made-by-codex\n");
  const json started = find_event(events, "thread.started");
  ASSERT_FALSE(started.is_null()) << "no thread.started";
  EXPECT_FALSE(started.value("thread_id", "").empty());
  const json command = find_event(events, "item.completed", "command_execution");
  ASSERT_FALSE(command.is_null()) << "no completed command_execution";
  EXPECT_THAT(command["item"].value("command", ""), HasSubstr("echo made-by-codex > proof.txt"));
  EXPECT_EQ(command["item"]["exit_code"], 0);
  EXPECT_EQ(command["item"]["status"], "completed");
  EXPECT_EQ(command["item"]["aggregated_output"], workspace.string() + "\n");
  const json message = find_event(events, "item.completed", "agent_message");
  ASSERT_FALSE(message.is_null()) << "no agent_message";
  EXPECT_EQ(message["item"]["text"], "Proof written.");
  const json completed = find_event(events, "turn.completed");
  ASSERT_FALSE(completed.is_null()) << "no turn.completed";
  EXPECT_GT(completed["usage"].value("input_tokens", 0), 0);
  EXPECT_GT(completed["usage"].value("output_tokens", 0), 0);

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u) << "codex asked for nothing but the two model turns";
  for (const RecordedRequest& request : requests) {
    EXPECT_EQ(request.path, "/v1/responses");
    EXPECT_EQ(request.headers.at("authorization"), "Bearer sk-fake-codex");
  }
  const json first = json::parse(requests[0].body);
  EXPECT_EQ(first["model"], k_codex_model);
  EXPECT_EQ(first["stream"], true);
  bool has_shell_tool = false;
  for (const json& tool : first["tools"]) {
    has_shell_tool = has_shell_tool || tool.value("name", "") == "exec_command";
  }
  EXPECT_TRUE(has_shell_tool) << first["tools"].dump();
  const auto calls = input_items(requests[1], "function_call");
  const auto outputs = input_items(requests[1], "function_call_output");
  ASSERT_EQ(calls.size(), 1u);
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(calls[0]["call_id"], outputs[0]["call_id"]);
  EXPECT_EQ(calls[0]["name"], "exec_command");
  EXPECT_THAT(outputs[0].value("output", ""), HasSubstr("Process exited with code 0"));
}

TEST_F(CodexCliTest, ResumedThreadResendsItsHistoryAndKeepsCountingUsage) {
  const std::vector<json> first = run_first_turn();
  const std::string thread = find_event(first, "thread.started").value("thread_id", "");
  ASSERT_FALSE(thread.empty());
  const std::int64_t first_input = find_event(first, "turn.completed")["usage"]["input_tokens"];

  server.push(codex_shell_turn("echo again >> proof.txt"));
  server.push(text_turn("Appended."));
  const tools::ProcessResult result = codex({"resume", thread}, "Append to it.");
  ASSERT_EQ(result.exit_code, 0) << result.output << result.err_output;
  const std::vector<json> events = events_of(result.output);

  EXPECT_EQ(root.read("workspace/proof.txt"), "made-by-codex\nagain\n");
  EXPECT_EQ(find_event(events, "thread.started").value("thread_id", ""), thread);
  EXPECT_EQ(find_event(events, "item.completed", "agent_message")["item"]["text"], "Appended.");
  // The usage of a resumed thread is its running total, earlier invocations included.
  const std::int64_t total = find_event(events, "turn.completed")["usage"]["input_tokens"];
  EXPECT_GT(total, first_input);

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 4u);
  // Stateless: the resumed thread's first request carries the first run's call and answer.
  const auto calls = input_items(requests[2], "function_call");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_THAT(calls[0].value("arguments", ""), HasSubstr("made-by-codex"));
  EXPECT_THAT(requests[2].body, HasSubstr("Proof written."));
  EXPECT_THAT(requests[2].body, HasSubstr("Append to it."));
}

} // namespace
} // namespace ralph::testing
