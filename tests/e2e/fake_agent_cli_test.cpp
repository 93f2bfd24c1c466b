// The fake agent CLI, run as ralph runs the real ones (tools::PosixProcessRunner): each format's
// stdout checked against the agent CLI format reference, and the misbehaviour it plays on demand.
#include "e2e_support.h"
#include "fake_agent_cli.h"
#include "support/temp_dir.h"

#include "ralph/core/cancel.h"
#include "ralph/tools/process_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using json = nlohmann::json;
using tools::ProcessResult;
using tools::ProcessSpec;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

// The JSON lines of `out`; lines not starting with '{' are skipped (as the parsers skip them),
// every other line must parse.
std::vector<json> events_of(const std::string& out) {
  std::vector<json> events;
  for (const std::string& line : lines_of(out)) {
    if (line.starts_with('{')) {
      events.push_back(json::parse(line, nullptr, false));
      EXPECT_FALSE(events.back().is_discarded()) << line.substr(0, 200);
    }
  }
  return events;
}

std::vector<json> of_type(const std::vector<json>& events, const std::string& type) {
  std::vector<json> found;
  for (const json& event : events) {
    if (event.value("type", "") == type) {
      found.push_back(event);
    }
  }
  return found;
}

// The process with `pid` is gone, or a zombie waiting for init.
bool dead(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string text;
  std::getline(stat, text);
  return text.empty() || text.find(") Z ") != std::string::npos;
}

class FakeAgentCliTest : public ::testing::Test {
protected:
  ProcessSpec spec(const std::string& name, std::vector<std::string> args = {}) const {
    ProcessSpec spec;
    spec.argv = {cli.program(name).string()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.cwd = workspace.path();
    spec.env = cli.env();
    spec.stdin_data = "fix the failing test\n";
    spec.merge_stderr = false;
    spec.timeout = std::chrono::seconds(60);
    return spec;
  }
  ProcessResult run(const ProcessSpec& spec, const CancelToken& cancel = {}) const {
    auto result = tools::PosixProcessRunner().run(spec, cancel);
    EXPECT_TRUE(result.has_value());
    return result.has_value() ? *result : ProcessResult{};
  }
  ProcessResult run(const std::string& name, std::vector<std::string> args = {}) const {
    return run(spec(name, std::move(args)));
  }

  TempDir fake_home;
  TempDir workspace;
  FakeAgentCli cli{fake_home};
};

TEST_F(FakeAgentCliTest, VersionNamesTheFormatItRunsAs) {
  for (const char* name : k_fake_agent_names) {
    const ProcessResult result = run(name, {"--version"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(result.output, std::string("fake-agent-cli ") + name + "\n");
  }
  ProcessSpec by_path = spec("claude");
  by_path.argv = {"/bin/sh", "-c", "gemini --version"};
  EXPECT_EQ(run(by_path).output, "fake-agent-cli gemini\n");
  ProcessSpec forced = spec("claude", {"--version"});
  forced.env.emplace_back("FAKE_AGENT_FORMAT", "opencode");
  EXPECT_EQ(run(forced).output, "fake-agent-cli opencode\n");
}

TEST_F(FakeAgentCliTest, ClaudeStreamJsonFromInitToResult) {
  cli.script({FakeRun()
                  .session("8c1d-session")
                  .say("Running the tests.")
                  .shell("echo FAIL parse_test; exit 3")
                  .write("src/a.txt", "fixed\n")
                  .shell("cat src/a.txt")
                  .notice("slow down")
                  .say("All tests pass.")
                  .usage(1000, 200, 300)
                  .cost(0.1834)});

  const ProcessResult result = run("claude", {"-p", "--output-format", "stream-json"});

  ASSERT_EQ(result.exit_code, 0) << result.err_output;
  EXPECT_EQ(workspace.read("src/a.txt"), "fixed\n");
  const auto events = events_of(result.output);
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front()["type"], "system");
  EXPECT_EQ(events.front()["subtype"], "init");
  EXPECT_EQ(events.front()["cwd"], workspace.path().string());
  for (const json& event : events) {
    EXPECT_EQ(event["session_id"], "8c1d-session");
    EXPECT_TRUE(event["uuid"].is_string());
  }
  std::vector<json> tool_uses;
  for (const json& event : of_type(events, "assistant")) {
    const json& block = event["message"]["content"].at(0);
    if (block["type"] == "tool_use") {
      tool_uses.push_back(block);
    }
  }
  ASSERT_EQ(tool_uses.size(), 3u);
  EXPECT_EQ(tool_uses[0]["name"], "Bash");
  EXPECT_EQ(tool_uses[0]["input"]["command"], "echo FAIL parse_test; exit 3");
  EXPECT_EQ(tool_uses[1]["name"], "Write");
  EXPECT_EQ(tool_uses[1]["input"]["file_path"], (workspace.path() / "src/a.txt").string());
  const auto results = of_type(events, "user");
  ASSERT_EQ(results.size(), 3u);
  const json& failed = results[0]["message"]["content"].at(0);
  EXPECT_EQ(failed["tool_use_id"], tool_uses[0]["id"]);
  EXPECT_EQ(failed["is_error"], true);
  EXPECT_EQ(failed["content"], "Exit code 3\nFAIL parse_test");
  const json& passed = results[2]["message"]["content"].at(0);
  EXPECT_EQ(passed["is_error"], false);
  EXPECT_EQ(results[2]["tool_use_result"]["stdout"], "fixed\n");
  EXPECT_THAT(result.err_output, HasSubstr("slow down")); // Claude has no warning event

  const json& last = events.back();
  EXPECT_EQ(last["type"], "result");
  EXPECT_EQ(last["subtype"], "success");
  EXPECT_EQ(last["is_error"], false);
  EXPECT_EQ(last["result"], "All tests pass.");
  EXPECT_DOUBLE_EQ(last["total_cost_usd"].get<double>(), 0.1834);
  EXPECT_EQ(last["usage"]["input_tokens"], 700); // Anthropic's count leaves out cache reads
  EXPECT_EQ(last["usage"]["cache_read_input_tokens"], 300);
  EXPECT_EQ(last["usage"]["output_tokens"], 200);
}

TEST_F(FakeAgentCliTest, CodexJsonFromThreadStartedToTurnCompleted) {
  cli.script({FakeRun()
                  .session("0199a213-thread")
                  .shell("printf 'FAIL x\\n'; exit 2")
                  .shell("true")
                  .write("new.txt", "x")
                  .notice("model rerouted")
                  .say("Fixed.")
                  .usage(24763, 1220, 24448)});

  const ProcessResult result = run("codex", {"exec", "--json", "-"});

  ASSERT_EQ(result.exit_code, 0) << result.err_output;
  const auto events = events_of(result.output);
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events[0], (json{{"type", "thread.started"}, {"thread_id", "0199a213-thread"}}));
  EXPECT_EQ(events[1]["type"], "turn.started");
  const auto started = of_type(events, "item.started");
  ASSERT_FALSE(started.empty());
  EXPECT_TRUE(started[0]["item"]["exit_code"].is_null());
  std::vector<json> commands;
  std::vector<json> items;
  for (const json& event : of_type(events, "item.completed")) {
    items.push_back(event["item"]);
    if (event["item"]["type"] == "command_execution") {
      commands.push_back(event["item"]);
    }
  }
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0]["id"], started[0]["item"]["id"]);
  EXPECT_EQ(commands[0]["exit_code"], 2);
  EXPECT_EQ(commands[0]["status"], "failed");
  EXPECT_EQ(commands[0]["aggregated_output"], "FAIL x\n");
  EXPECT_EQ(commands[1]["exit_code"], 0);
  EXPECT_EQ(commands[1]["status"], "completed");
  EXPECT_EQ(items[2]["type"], "file_change");
  EXPECT_EQ(items[2]["changes"][0]["kind"], "add");
  EXPECT_EQ(items[3], (json{{"id", "item_3"}, {"type", "agent_message"}, {"text", "Fixed."}}));
  EXPECT_EQ(of_type(events, "error").at(0)["message"], "model rerouted");
  EXPECT_EQ(
      events.back(),
      (json{{"type", "turn.completed"},
            {"usage",
             {{"input_tokens", 24763}, {"cached_input_tokens", 24448}, {"output_tokens", 1220}}}}));
}

TEST_F(FakeAgentCliTest, GeminiStreamJsonEchoesThePromptAndEndsWithResult) {
  cli.script({FakeRun()
                  .session("5b0c-session")
                  .say("I'll run")
                  .shell("echo boom >&2; exit 1")
                  .notice("Loop detected")
                  .usage(4800, 320, 3000)});

  const ProcessResult result = run("gemini", {"-p", "and be quick", "-o", "stream-json"});

  ASSERT_EQ(result.exit_code, 0) << result.err_output;
  const auto events = events_of(result.output);
  for (const json& event : events) {
    EXPECT_TRUE(event["timestamp"].is_string());
  }
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "init");
  EXPECT_EQ(events[0]["session_id"], "5b0c-session");
  EXPECT_EQ(events[1]["role"], "user");
  EXPECT_EQ(events[1]["content"], "fix the failing test\n\nand be quick");
  EXPECT_EQ(events[2]["content"], "I'll run");
  EXPECT_EQ(events[2]["delta"], true);
  const json tool_use = of_type(events, "tool_use").at(0);
  EXPECT_EQ(tool_use["tool_name"], "run_shell_command");
  EXPECT_EQ(tool_use["parameters"]["command"], "echo boom >&2; exit 1");
  const json tool_result = of_type(events, "tool_result").at(0);
  EXPECT_EQ(tool_result["tool_id"], tool_use["tool_id"]);
  EXPECT_EQ(tool_result["status"], "error");
  EXPECT_EQ(tool_result["output"], "boom\n");
  EXPECT_EQ(of_type(events, "error").at(0)["severity"], "warning");
  const json& last = events.back();
  EXPECT_EQ(last["type"], "result");
  EXPECT_EQ(last["status"], "success");
  EXPECT_EQ(last["stats"]["input_tokens"], 4800);
  EXPECT_EQ(last["stats"]["cached"], 3000);
  EXPECT_EQ(last["stats"]["input"], 1800);
  EXPECT_EQ(last["stats"]["output_tokens"], 320);
}

TEST_F(FakeAgentCliTest, GooseStreamJsonToolRequestsAndComplete) {
  cli.script({FakeRun().say("Running tests").shell("echo ok").usage(100, 23)});

  const ProcessResult result = run("goose", {"run", "--output-format", "stream-json", "-t", "x"});

  ASSERT_EQ(result.exit_code, 0) << result.err_output;
  const auto events = events_of(result.output);
  const auto messages = of_type(events, "message");
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0]["message"]["content"][0]["text"], "Running tests");
  const json& request = messages[1]["message"]["content"][0];
  EXPECT_EQ(request["type"], "toolRequest");
  EXPECT_EQ(request["toolCall"]["value"]["name"], "developer__shell");
  EXPECT_EQ(request["toolCall"]["value"]["arguments"]["command"], "echo ok");
  EXPECT_EQ(messages[2]["message"]["role"], "user");
  const json& response = messages[2]["message"]["content"][0];
  EXPECT_EQ(response["id"], request["id"]);
  EXPECT_EQ(response["toolResult"]["value"]["content"][0]["text"], "ok\n");
  EXPECT_EQ(response["toolResult"]["value"]["isError"], false);
  EXPECT_EQ(events.back(), (json{{"type", "complete"}, {"total_tokens", 123}}));
}

TEST_F(FakeAgentCliTest, OpencodeJsonEventsWithBashExitAndStepCost) {
  cli.script({FakeRun()
                  .session("ses_9x")
                  .say("Running tests.")
                  .shell("exit 2")
                  .usage(8000, 600, 7000)
                  .cost(0.0123)});

  const ProcessResult result = run("opencode", {"run", "--format", "json", "go"});

  ASSERT_EQ(result.exit_code, 0) << result.err_output;
  const auto events = events_of(result.output);
  for (const json& event : events) {
    EXPECT_EQ(event["sessionID"], "ses_9x");
    EXPECT_TRUE(event["timestamp"].is_number_integer());
  }
  EXPECT_EQ(events.at(0)["type"], "step_start");
  EXPECT_EQ(of_type(events, "text").at(0)["part"]["text"], "Running tests.");
  const json tool = of_type(events, "tool_use").at(0)["part"];
  EXPECT_EQ(tool["tool"], "bash");
  EXPECT_EQ(tool["state"]["status"], "completed");
  EXPECT_EQ(tool["state"]["input"]["command"], "exit 2");
  EXPECT_EQ(tool["state"]["metadata"]["exit"], 2);
  const json finish = of_type(events, "step_finish").at(0)["part"];
  EXPECT_DOUBLE_EQ(finish["cost"].get<double>(), 0.0123);
  EXPECT_EQ(finish["tokens"]["output"], 600);
  EXPECT_EQ(finish["tokens"]["cache"]["read"], 7000);
  EXPECT_EQ(events.back()["type"], "done");
}

TEST_F(FakeAgentCliTest, AiderPrintsTextAndItsTokensLine) {
  cli.script({FakeRun()
                  .say("I will fix it.")
                  .shell("echo from the shell")
                  .write("add.sh", "add() { :; }\n")
                  .say("Done.")
                  .usage(12345, 850, 1200)
                  .cost(0.0234)});

  const ProcessResult result = run("aider", {"--message", "fix", "--no-pretty"});

  ASSERT_EQ(result.exit_code, 0) << result.err_output;
  const auto lines = lines_of(result.output);
  EXPECT_THAT(result.output, HasSubstr("I will fix it.\nfrom the shell\nApplied edit to add.sh\n"));
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[lines.size() - 2], "Done.");
  EXPECT_EQ(lines.back(),
            "Tokens: 12k sent, 1.2k cache hit, 850 received. Cost: $0.02 message, $0.02 session.");
}

TEST_F(FakeAgentCliTest, ErrorEndsEachFormatItsOwnWay) {
  struct Expected {
    const char* name;
    int exit_code;
    const char* terminal; // what the last stdout line says
  };
  const Expected cases[] = {{"claude", 1, R"("result":"API Error: quota exceeded")"},
                            {"codex", 1, R"("type":"turn.failed")"},
                            {"gemini", 1, R"("status":"error")"},
                            {"opencode", 1, R"("type":"error")"},
                            {"goose", 0, R"("type":"complete")"},
                            {"aider", 0, "litellm.APIError: quota exceeded"}};
  for (const Expected& expected : cases) {
    SCOPED_TRACE(expected.name);
    cli.script({FakeRun()
                    .say("trying")
                    .end("error")
                    .set("error_message", "quota exceeded")
                    .set("stderr", "some stderr\n")});
    const ProcessResult result = run(expected.name);
    EXPECT_EQ(result.exit_code, expected.exit_code);
    EXPECT_THAT(lines_of(result.output).back(), HasSubstr(expected.terminal));
    EXPECT_THAT(result.output, HasSubstr("quota exceeded"));
    EXPECT_EQ(result.err_output, "some stderr\n");
  }
}

TEST_F(FakeAgentCliTest, ClaudeErrorResultIsErrorWithSubtypeSuccess) {
  cli.script({FakeRun().end("error"), FakeRun().end("exit0_error")});

  const ProcessResult failed = run("claude");
  const ProcessResult exit0 = run("claude");

  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_EQ(exit0.exit_code, 0);
  for (const ProcessResult* result : {&failed, &exit0}) {
    const json last = events_of(result->output).back();
    EXPECT_EQ(last["type"], "result");
    EXPECT_EQ(last["subtype"], "success");
    EXPECT_EQ(last["is_error"], true);
    EXPECT_THAT(last["result"].get<std::string>(), StartsWith("API Error: "));
  }
}

TEST_F(FakeAgentCliTest, CrashDiesOfSegvWithoutTerminalEvent) {
  cli.script({FakeRun().say("working").end("crash"), FakeRun().end("crash").set("exit_code", 1)});

  const ProcessResult crashed = run("claude");
  const ProcessResult exited = run("codex");

  EXPECT_FALSE(crashed.exit_code.has_value());
  EXPECT_EQ(crashed.term_signal, SIGSEGV);
  EXPECT_THAT(crashed.err_output, HasSubstr("Segmentation fault"));
  EXPECT_EQ(events_of(crashed.output).back()["type"], "assistant");
  EXPECT_EQ(exited.exit_code, 1);
  EXPECT_TRUE(of_type(events_of(exited.output), "turn.failed").empty());
}

TEST_F(FakeAgentCliTest, NoTerminalEndsWithoutTheTerminalEvent) {
  cli.script({FakeRun().say("halfway").end("no_terminal"),
              FakeRun().end("no_terminal").set("exit_code", 7)});

  const ProcessResult first = run("codex");
  const ProcessResult second = run("aider");

  EXPECT_EQ(first.exit_code, 0);
  const auto events = events_of(first.output);
  EXPECT_EQ(events.back()["type"], "item.completed");
  EXPECT_TRUE(of_type(events, "turn.completed").empty());
  EXPECT_EQ(second.exit_code, 7);
  EXPECT_THAT(second.output, ::testing::Not(HasSubstr("Tokens:")));
}

TEST_F(FakeAgentCliTest, BigLineIsOneValidEvent) {
  constexpr std::size_t k_bytes = 3 * 1024 * 1024;
  cli.script({FakeRun().set("big_line_bytes", k_bytes).say("small")});
  ProcessSpec big = spec("claude");
  std::string whole;
  big.on_output = [&whole](std::string_view chunk) { whole += chunk; };

  const ProcessResult result = run(big);

  ASSERT_EQ(result.exit_code, 0);
  std::size_t longest = 0;
  for (const json& event : of_type(events_of(whole), "assistant")) {
    longest = std::max(longest, event["message"]["content"][0]["text"].get<std::string>().size());
  }
  EXPECT_EQ(longest, k_bytes);
  EXPECT_EQ(events_of(whole).back()["result"], "small");
}

TEST_F(FakeAgentCliTest, JunkLinesComeBetweenValidEvents) {
  cli.script({FakeRun().set("junk_lines", true).say("a").say("b")});

  const ProcessResult result = run("gemini");

  ASSERT_EQ(result.exit_code, 0);
  const auto lines = lines_of(result.output);
  std::size_t junk = 0;
  for (const std::string& line : lines) {
    junk += line.starts_with('{') ? 0 : 1;
  }
  EXPECT_EQ(junk * 2, lines.size()); // one after every event
  EXPECT_EQ(events_of(result.output).size(), junk);
  EXPECT_EQ(events_of(result.output).back()["type"], "result");
}

TEST_F(FakeAgentCliTest, LogRecordsEachInvocationAndTheStateAdvances) {
  cli.script(R"({"runs":[{"log_env":["FAKE_TEST_VAR","UNSET_VAR"]},{"read_stdin":false}]})");
  ProcessSpec first = spec("claude", {"-p", "--verbose"});
  first.env.emplace_back("FAKE_TEST_VAR", "seen");
  first.env.emplace_back("FAKE_AGENT_EXTRA", "kept");

  ASSERT_EQ(run(first).exit_code, 0);
  EXPECT_EQ(cli.runs_taken(), 1u);
  ASSERT_EQ(run("codex", {"exec", "resume", "abc"}).exit_code, 0);
  EXPECT_EQ(cli.runs_taken(), 2u);
  const ProcessResult none_left = run("codex");

  EXPECT_EQ(none_left.exit_code, 2);
  EXPECT_THAT(none_left.err_output, HasSubstr("no run left"));
  EXPECT_THAT(none_left.err_output, HasSubstr(cli.script_path().string()));
  const auto log = cli.invocations();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0]["argv"], (json{cli.program("claude").string(), "-p", "--verbose"}));
  EXPECT_EQ(log[0]["cwd"], workspace.path().string());
  EXPECT_EQ(log[0]["stdin"], "fix the failing test\n");
  EXPECT_EQ(log[0]["env"], (json{{"FAKE_AGENT_SCRIPT", cli.script_path().string()},
                                 {"FAKE_AGENT_EXTRA", "kept"},
                                 {"FAKE_TEST_VAR", "seen"},
                                 {"UNSET_VAR", nullptr}}));
  EXPECT_EQ(log[0]["run"], 0);
  EXPECT_EQ(log[1]["argv"][3], "abc");
  EXPECT_EQ(log[1]["stdin"], "");
  EXPECT_EQ(log[1]["run"], 1);
  EXPECT_EQ(log[1]["format"], "codex");
}

TEST_F(FakeAgentCliTest, MissingScriptOrFormatIsAClearErrorWithExit2) {
  ProcessSpec missing = spec("claude");
  missing.env = {{"FAKE_AGENT_SCRIPT", (fake_home.path() / "nowhere.json").string()}};
  const ProcessResult no_script = run(missing);
  EXPECT_EQ(no_script.exit_code, 2);
  EXPECT_THAT(no_script.err_output, HasSubstr("nowhere.json: cannot read the script"));
  EXPECT_TRUE(no_script.output.empty());

  ProcessSpec unnamed = spec("claude");
  unnamed.argv = {RALPH_FAKE_AGENT_CLI};
  const ProcessResult no_format = run(unnamed);
  EXPECT_EQ(no_format.exit_code, 2);
  EXPECT_THAT(no_format.err_output, HasSubstr("unknown format \"fake_agent_cli\""));
}

TEST_F(FakeAgentCliTest, SpawnBackgroundLeavesASleeperInItsProcessGroup) {
  const auto pid_path = fake_home.path() / "sleeper.pid";
  cli.script({FakeRun().set("spawn_background", pid_path.string()).end("hang")});
  ProcessSpec hang = spec("claude");
  CancelToken cancel;
  std::string pid;
  std::string command;
  std::string group;
  // The first output comes after the sleeper started, while the fake hangs: look, then stop it.
  hang.on_output = [&](std::string_view) {
    if (!pid.empty()) {
      return;
    }
    std::ifstream(pid_path) >> pid;
    std::ifstream cmdline("/proc/" + pid + "/cmdline");
    std::getline(cmdline, command);
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string skip;
    stat >> skip >> skip >> skip >> skip >> group; // pid (comm) state ppid pgrp
    cancel.cancel();
  };

  const ProcessResult result = run(hang, cancel);

  EXPECT_TRUE(result.cancelled);
  ASSERT_FALSE(pid.empty());
  EXPECT_EQ(command, std::string("sleep\0"
                                 "1000\0",
                                 11));
  EXPECT_EQ(group, std::to_string(cli.invocations().at(0)["pid"].get<int>()));
  EXPECT_TRUE(eventually([&pid] { return dead(pid); })); // the runner killed the whole group
}

TEST_F(FakeAgentCliTest, HangPrintsNothingAfterItsSteps) {
  cli.script({FakeRun().say("thinking").end("hang")});
  ProcessSpec hang = spec("gemini");
  hang.timeout = std::chrono::seconds(1); // time enough to print the steps, then silence

  const ProcessResult result = run(hang);

  EXPECT_TRUE(result.timed_out);
  const auto events = events_of(result.output);
  ASSERT_EQ(events.size(), 3u); // init, the prompt's echo, the text
  EXPECT_EQ(events.back()["content"], "thinking");
}

TEST_F(FakeAgentCliTest, ChatterKeepsPrintingValidNonTerminalLines) {
  cli.script({FakeRun().say("working").end("chatter")});
  ProcessSpec chatter = spec("codex");
  CancelToken cancel;
  std::string seen;
  int ticks = 0;
  chatter.on_output = [&](std::string_view chunk) {
    seen += chunk;
    for (auto at = seen.find("item.updated"); at != std::string::npos;
         at = seen.find("item.updated")) {
      seen.erase(0, at + 1);
      ++ticks;
    }
    if (ticks >= 3) {
      cancel.cancel();
    }
  };

  const ProcessResult result = run(chatter, cancel);

  EXPECT_TRUE(result.cancelled);
  const auto events = events_of(result.output);
  EXPECT_GE(of_type(events, "item.updated").size(), 3u);
  EXPECT_TRUE(of_type(events, "turn.completed").empty());
  EXPECT_TRUE(of_type(events, "turn.failed").empty());
}

} // namespace
} // namespace ralph::testing
