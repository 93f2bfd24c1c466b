// `ralph run` end to end: the real binary, real tools in a temp workspace, a fake provider server
// on 127.0.0.1 speaking the real wire formats.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

class RunEndToEnd : public ::testing::Test {
protected:
  std::vector<std::string> openai_args(std::vector<std::string> extra) const {
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

  FakeProviderServer server;
  TempDir workspace;
  TempDir cwd;
};

TEST_F(RunEndToEnd, AgentUsesRealToolsAndAnswers) {
  server.push(tool_turn("write_file", {{"path", "hello.txt"}, {"content", "hi there\n"}}));
  server.push(tool_turn("shell", {{"command", "cat hello.txt && exit 3"}}));
  server.push(text_turn("Created hello.txt."));

  const auto result = run_ralph(openai_args({"create hello.txt", "--json"}), cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(workspace.read("hello.txt"), "hi there\n");
  const auto out = json::parse(result.out);
  EXPECT_EQ(out["status"], "completed");
  EXPECT_EQ(out["answer"], "Created hello.txt.");
  EXPECT_EQ(out["iterations"], 1);
  EXPECT_TRUE(out["verdicts"].is_array());
  EXPECT_GT(out["usage"]["input_tokens"].get<int>(), 0);
  EXPECT_FALSE(out["session_id"].get<std::string>().empty());

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  // The third request carries the shell result with its output and structured exit code line.
  const auto third = json::parse(requests[2].body);
  const auto& messages = third["messages"];
  const auto& last = messages.back();
  EXPECT_EQ(last["role"], "tool");
  EXPECT_THAT(last["content"].get<std::string>(), HasSubstr("hi there"));
  EXPECT_THAT(last["content"].get<std::string>(), HasSubstr("exit code: 3"));
  // Every tool message answers the call of the assistant message before it.
  const auto& assistant = messages[messages.size() - 2];
  EXPECT_EQ(assistant["tool_calls"][0]["id"], last["tool_call_id"]);
}

TEST_F(RunEndToEnd, StreamsTextAndShowsToolCallsOnTheTerminal) {
  server.set_chunk_size(3);
  server.push(tool_turn("list_dir", json::object()));
  server.push(text_turn("The workspace is empty. Ünïcödé ✓"));

  const auto result = run_ralph(openai_args({"look around"}), cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("The workspace is empty. Ünïcödé ✓"));
  EXPECT_THAT(result.err, HasSubstr("list_dir"));
}

TEST_F(RunEndToEnd, TheCompletionMarkerIsNotShownOnTheScreenOrInTheEvents) {
  // Pieces of 16 bytes and chunks of 5: the marker comes cut in several places.
  server.set_chunk_size(5);
  server.push(text_turn("All done, the tests pass.\n< Promise >done</promise>\n"));

  const auto result = run_ralph(
      openai_args({"finish it", "--events", (cwd.path() / "events.ndjson").string()}), cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("All done, the tests pass.\n"));
  EXPECT_THAT(result.out, Not(HasSubstr("romise")));
  std::string streamed;
  std::istringstream events(cwd.read("events.ndjson"));
  for (std::string line; std::getline(events, line);) {
    const auto event = json::parse(line);
    if (event["type"] == "text_delta") {
      streamed += event["text"].get<std::string>();
    }
  }
  EXPECT_EQ(streamed, "All done, the tests pass.\n\n");
}

TEST_F(RunEndToEnd, AnthropicProviderKeepsTheKeyOutOfEveryOutput) {
  FakeTurn call = tool_turn("write_file", {{"path", "a.txt"}, {"content", "x"}});
  call.thinking = "I should write the file.";
  server.push(call);
  server.push(text_turn("Wrote a.txt"));
  const std::string key = "sk-ant-test-secret-123";

  const auto result =
      run_ralph({"run", "write a.txt", "--model", "anthropic/claude-test", "--base-url",
                 server.base_url(), "--workspace", workspace.path().string(), "--json"},
                cwd.path(), {{"ANTHROPIC_API_KEY", key}});

  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(workspace.read("a.txt"), "x");
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].path, "/v1/messages");
  EXPECT_EQ(requests[0].headers.at("x-api-key"), key);
  EXPECT_EQ(requests[0].headers.at("anthropic-version"), "2023-06-01");
  // The thinking block goes back unchanged, before the tool_use, with the tool_result after it.
  const auto second = json::parse(requests[1].body);
  const auto& assistant = second["messages"][1];
  EXPECT_EQ(assistant["content"][0]["type"], "thinking");
  EXPECT_EQ(assistant["content"][0]["thinking"], "I should write the file.");
  EXPECT_EQ(second["messages"][2]["content"][0]["type"], "tool_result");
  EXPECT_THAT(result.out, Not(HasSubstr(key)));
  EXPECT_THAT(result.err, Not(HasSubstr(key)));
}

TEST_F(RunEndToEnd, ResponsesApiModelTakesItsServerFromOpenAiBaseUrl) {
  server.push(tool_turn("shell", {{"command", "echo from-responses > r.txt"}}));
  server.push(text_turn("Wrote r.txt"));
  const std::string key = "sk-responses-test-456";

  const auto result = run_ralph(
      {"run", "write r.txt", "--model", "openai-responses/gpt-test", "--workspace",
       workspace.path().string(), "--json"},
      cwd.path(), {{"OPENAI_API_KEY", key}, {"OPENAI_BASE_URL", server.base_url() + "/v1"}});

  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(workspace.read("r.txt"), "from-responses\n");
  EXPECT_EQ(json::parse(result.out)["answer"], "Wrote r.txt");
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].path, "/v1/responses");
  EXPECT_EQ(requests[0].headers.at("authorization"), "Bearer " + key);
  // The tool result goes back as a function_call_output answering the call before it.
  const auto input = json::parse(requests[1].body)["input"];
  ASSERT_GE(input.size(), 3u);
  const auto& call = input[input.size() - 2];
  const auto& output = input.back();
  EXPECT_EQ(call["type"], "function_call");
  EXPECT_EQ(output["type"], "function_call_output");
  EXPECT_EQ(output["call_id"], call["call_id"]);
  EXPECT_THAT(result.out, Not(HasSubstr(key)));
  EXPECT_THAT(result.err, Not(HasSubstr(key)));
}

// The fake server streams text in pieces of 16 bytes: "Here it is: tok-" ends the first, so the
// secret arrives split across two deltas (and its shell command and output go to the terminal).
TEST_F(RunEndToEnd, ASecretSplitAcrossStreamedDeltasIsNeitherStreamedNorLogged) {
  const std::string secret = "tok-9f8e7d6c5b4a3210";
  server.push(tool_turn("shell", {{"command", "echo " + secret}}));
  server.push(text_turn("Here it is: " + secret + " (keep it safe)"));

  const auto result = run_ralph(openai_args({"show the token", "--events", "events.ndjson"}),
                                cwd.path(), {{"SERVICE_TOKEN", secret}});

  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string log = cwd.read("events.ndjson");
  std::string joined;
  int deltas = 0;
  for (std::size_t at = 0; at < log.size();) {
    const std::size_t end = log.find('\n', at);
    const auto line = json::parse(log.substr(at, end - at));
    if (line["type"] == "text_delta") {
      joined += line["text"].get<std::string>();
      ++deltas;
    }
    at = end + 1;
  }
  EXPECT_GT(deltas, 1);
  EXPECT_EQ(joined, "Here it is: [REDACTED] (keep it safe)");
  EXPECT_THAT(log, Not(HasSubstr(secret)));
  EXPECT_THAT(result.out, HasSubstr("Here it is: [REDACTED] (keep it safe)"));
  EXPECT_THAT(result.out, Not(HasSubstr(secret)));
  EXPECT_THAT(result.err, HasSubstr("[REDACTED]")); // the shell call and its output's tail
  EXPECT_THAT(result.err, Not(HasSubstr(secret)));
}

TEST_F(RunEndToEnd, ASecretTooShortToRedactIsWarnedAbout) {
  server.push(text_turn("ok"));
  const auto result = run_ralph(openai_args({"answer"}), cwd.path(), {{"PIN_TOKEN", "ab"}});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("warning: PIN_TOKEN is shorter than 4 characters"));
}

TEST_F(RunEndToEnd, RateLimitIsRetriedAfterTheServerHint) {
  FakeTurn limited;
  limited.fault = Fault::http_429;
  limited.retry_after_ms = 30;
  server.push(limited);
  server.push(text_turn("Fine now."));

  const auto result = run_ralph(openai_args({"hello"}), cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_THAT(result.err, HasSubstr("429"));
  EXPECT_THAT(result.out, HasSubstr("Fine now."));
}

TEST_F(RunEndToEnd, BadKeyIsReportedOnOneLineWithExitCode1) {
  FakeTurn denied;
  denied.fault = Fault::http_401;
  server.push(denied);

  const auto result = run_ralph(openai_args({"hello", "--json"}), cwd.path());

  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(server.requests().size(), 1u) << "a 401 must not be retried";
  EXPECT_THAT(result.err, HasSubstr("401"));
  EXPECT_EQ(json::parse(result.out)["status"], "failed");
}

TEST_F(RunEndToEnd, MaxStepsEndsWithBudgetExhausted) {
  for (int i = 0; i < 3; ++i) {
    server.push(tool_turn("shell", {{"command", "echo step"}}));
  }

  const auto result =
      run_ralph(openai_args({"loop forever", "--max-steps", "2", "--json"}), cwd.path());

  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_EQ(json::parse(result.out)["status"], "budget_exhausted");
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST_F(RunEndToEnd, PathOutsideTheWorkspaceGoesBackToTheModelAsAnError) {
  cwd.write("secret.txt", "top secret");
  server.push(
      tool_turn("read_file", {{"path", "../" + cwd.path().filename().string() + "/secret.txt"}}));
  server.push(text_turn("I cannot read it."));

  const auto result = run_ralph(openai_args({"read the secret"}), cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  const auto tool_message = json::parse(requests[1].body)["messages"].back();
  EXPECT_THAT(tool_message["content"].get<std::string>(), HasSubstr("outside the workspace"));
  EXPECT_THAT(tool_message["content"].get<std::string>(), Not(HasSubstr("top secret")));
}

TEST_F(RunEndToEnd, UnknownConfigKeyNamesFileLineAndKey) {
  workspace.write(".ralph/config.toml", "model = \"openai/gpt-4.1\"\n[agent]\nmax_stepz = 3\n");

  const auto result = run_ralph(openai_args({"hello"}), cwd.path());

  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("config.toml:3"));
  EXPECT_THAT(result.err, HasSubstr("max_stepz"));
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(RunEndToEnd, MissingGoalIsAUsageError) {
  const auto result = run_ralph({"run"}, cwd.path());
  EXPECT_EQ(result.exit_code, 2);
}

TEST_F(RunEndToEnd, MissingKeyNamesTheVariable) {
  const auto result = run_ralph({"run", "hi", "--model", "openai/gpt-4.1"}, cwd.path());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("OPENAI_API_KEY"));
}

TEST_F(RunEndToEnd, CtrlCStopsCleanlyWithExit130) {
  FakeTurn slow = text_turn("too late");
  slow.fault = Fault::slow_first_byte;
  slow.first_byte_delay = std::chrono::seconds(30);
  server.push(slow);

  RalphProcess process(openai_args({"wait for it"}), cwd.path());
  // The request reaching the server means ralph is inside the model call.
  ASSERT_TRUE(server.wait_for_requests(1, std::chrono::seconds(30)));
  process.signal(SIGINT);
  const auto result = process.wait();

  EXPECT_EQ(result.exit_code, 130) << result.err;
  EXPECT_THAT(result.err, HasSubstr("interrupted"));
}

TEST_F(RunEndToEnd, CtrlCDuringAToolKillsItsProcessesAndKeepsTheRecordValid) {
  server.push(tool_turn("shell", {{"command", "echo $$ > pid; exec sleep 1000"}}));
  server.push(text_turn("unused"));

  RalphProcess process(openai_args({"sleep", "--json"}), cwd.path());
  const auto pid_file = workspace.path() / "pid";
  ASSERT_TRUE(eventually([&] { return workspace.read("pid").find('\n') != std::string::npos; }));
  const pid_t sleeper = std::stoi(workspace.read("pid"));
  process.signal(SIGINT);
  const auto result = process.wait();

  EXPECT_EQ(result.exit_code, 130) << result.err;
  EXPECT_EQ(json::parse(result.out)["status"], "interrupted");
  EXPECT_TRUE(eventually([&] { return ::kill(sleeper, 0) != 0; }))
      << "the tool's process must not outlive the run";
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(RunEndToEnd, ShellTimeoutFromConfigEndsTheCommandAndTheModelHearsOfIt) {
  workspace.write(".ralph/config.toml", "[tools]\nshell_timeout = 1\n");
  server.push(tool_turn("shell", {{"command", "sleep 1000"}}));
  server.push(text_turn("It timed out."));

  const auto result = run_ralph(openai_args({"wait"}), cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto tool_message = json::parse(server.requests()[1].body)["messages"].back();
  EXPECT_THAT(tool_message["content"].get<std::string>(), HasSubstr("timed out after 1 s"));
}

TEST_F(RunEndToEnd, FlagsBeatEnvironmentWhichBeatsTheWorkspaceFile) {
  workspace.write(".ralph/config.toml", "[agent]\nmax_steps = 1\n");
  for (int i = 0; i < 5; ++i) {
    server.push(tool_turn("list_dir", json::object()));
  }

  const auto from_file = run_ralph(openai_args({"go", "--json"}), cwd.path());
  EXPECT_EQ(from_file.exit_code, 3) << from_file.err;
  EXPECT_EQ(server.requests().size(), 1u);

  const auto from_env =
      run_ralph(openai_args({"go", "--json"}), cwd.path(), {{"RALPH_MAX_STEPS", "2"}});
  EXPECT_EQ(from_env.exit_code, 3) << from_env.err;
  EXPECT_EQ(server.requests().size(), 3u);

  server.push(text_turn("done"));
  const auto from_flag = run_ralph(openai_args({"go", "--json", "--max-steps", "3"}), cwd.path(),
                                   {{"RALPH_MAX_STEPS", "2"}});
  EXPECT_EQ(from_flag.exit_code, 0) << from_flag.err;
  EXPECT_EQ(server.requests().size(), 6u);
}

TEST_F(RunEndToEnd, BadFlagValueIsAUsageErrorNamingTheFlag) {
  const auto result = run_ralph(openai_args({"go", "--max-steps", "zero"}), cwd.path());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("--max-steps"));
  EXPECT_THAT(result.err, HasSubstr("expected an integer"));
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(RunEndToEnd, DroppedStreamIsRetriedAndThePartialTextDisowned) {
  FakeTurn dropped = text_turn("This answer will be cut off in the middle of a sentence");
  dropped.fault = Fault::drop_mid_stream;
  server.push(dropped);
  server.push(text_turn("Complete answer."));

  const auto result = run_ralph(openai_args({"answer", "--json"}), cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(json::parse(result.out)["answer"], "Complete answer.");
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_THAT(result.err, HasSubstr("retry"));
}

TEST_F(RunEndToEnd, MalformedResponseIsRetriedLikeADroppedConnection) {
  FakeTurn broken = text_turn("x");
  broken.fault = Fault::malformed_json;
  server.push(broken);
  server.push(text_turn("Complete answer."));

  const auto result = run_ralph(openai_args({"answer", "--json", "--no-stream"}), cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(json::parse(result.out)["answer"], "Complete answer.");
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_THAT(result.err, HasSubstr("malformed JSON"));
}

TEST_F(RunEndToEnd, MalformedResponsesUntilRetriesRunOutFailWithAParseErrorNotAnEmptyAnswer) {
  for (int i = 0; i < 2; ++i) {
    FakeTurn broken = text_turn("x");
    broken.fault = Fault::malformed_json;
    server.push(broken);
  }

  const auto result = run_ralph(openai_args({"answer", "--json", "--no-stream"}), cwd.path(),
                                {{"RALPH_HTTP_MAX_RETRIES", "1"}});

  EXPECT_EQ(result.exit_code, 1) << result.err;
  const auto out = json::parse(result.out);
  EXPECT_EQ(out["status"], "failed");
  EXPECT_EQ(out["error"]["kind"], "parse");
  EXPECT_THAT(result.err, HasSubstr("malformed JSON"));
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST_F(RunEndToEnd, BadKeyIsNeverRetried) {
  FakeTurn denied;
  denied.fault = Fault::http_401;
  server.push(denied);
  server.push(text_turn("never sent"));

  const auto result = run_ralph(openai_args({"answer", "--json"}), cwd.path());

  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_THAT(result.err, Not(HasSubstr("retry")));
}

TEST_F(RunEndToEnd, NoStreamStillPrintsTheAnswer) {
  server.push(text_turn("Whole answer at once."));
  const auto result = run_ralph(openai_args({"answer", "--no-stream"}), cwd.path());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("Whole answer at once."));
  EXPECT_EQ(json::parse(server.requests()[0].body)["stream"], false);
}

TEST_F(RunEndToEnd, OllamaModelsSpeakItsDialect) {
  server.set_openai_flavor(OpenAiFlavor::ollama);
  FakeTurn calls;
  calls.tool_calls.push_back(
      {.name = "write_file", .arguments = R"({"path":"a.txt","content":"A"})"});
  calls.tool_calls.push_back(
      {.name = "write_file", .arguments = R"({"path":"b.txt","content":"B"})"});
  server.push(calls);
  server.push(text_turn("Wrote both."));

  const auto result =
      run_ralph({"run", "write two files", "--model", "ollama/qwen3:8b", "--base-url",
                 server.base_url() + "/v1", "--workspace", workspace.path().string()},
                cwd.path());

  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(workspace.read("a.txt"), "A");
  EXPECT_EQ(workspace.read("b.txt"), "B");
  const auto first = json::parse(server.requests()[0].body);
  EXPECT_TRUE(first.contains("max_tokens"));
  EXPECT_FALSE(first.contains("max_completion_tokens"));
}

TEST_F(RunEndToEnd, OllamaNotRunningSaysHowToStartItInsteadOfRetrying) {
  // Nothing listens on port 1: the connection is refused at once, as when Ollama is not started.
  const auto result = run_ralph({"run", "say hi", "--model", "ollama/qwen3:8b", "--base-url",
                                 "http://127.0.0.1:1/v1", "--workspace", workspace.path().string()},
                                cwd.path());

  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_THAT(result.err, HasSubstr("127.0.0.1:1/v1/chat/completions"));
  EXPECT_THAT(result.err, HasSubstr("is Ollama running? start it with `ollama serve`"));
  EXPECT_THAT(result.err, Not(HasSubstr("retry"))) << "a refused local server is not retried";
}

TEST(CommandLine, HelpListsTheCommandsAndExitCodes) {
  TempDir cwd;
  const auto top = run_ralph({"--help"}, cwd.path());
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_THAT(top.out, HasSubstr("run"));
  EXPECT_THAT(top.out, HasSubstr("demo"));
  EXPECT_THAT(top.out, HasSubstr("130 interrupted"));
  const auto run = run_ralph({"run", "--help"}, cwd.path());
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.out, HasSubstr("--max-steps"));
  EXPECT_THAT(run.out, HasSubstr("--workspace"));
  const auto unknown = run_ralph({"run", "goal", "--frobnicate"}, cwd.path());
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("--frobnicate"));
}

TEST(DemoEndToEnd, RunsWithoutKeyAndSaysTheModelIsScripted) {
  TempDir cwd;
  const auto result = run_ralph({"demo"}, cwd.path());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("scripted stand-in"));
  EXPECT_THAT(result.err, HasSubstr("shell"));
  // The test the stand-in wrote really ran and passed in the temporary workspace.
  EXPECT_THAT(result.err, HasSubstr("ok: greets by name"));
  EXPECT_THAT(result.out, HasSubstr("both checks pass"));
  // The demo keeps its workspace for the user to look at; the test does not.
  const std::string marker = "the files are in ";
  const std::size_t at = result.err.find(marker);
  ASSERT_NE(at, std::string::npos);
  const std::string dir =
      result.err.substr(at + marker.size(), result.err.find('\n', at) - at - marker.size());
  EXPECT_TRUE(dir.find("ralph-demo-") != std::string::npos) << dir;
  std::filesystem::remove_all(dir);
}

TEST(DemoEndToEnd, QuietKeepsEachTurnOfTheModelOnItsOwnLine) {
  TempDir cwd;
  // The demo keeps its workspace, unnamed with --quiet: it goes under this test's folder.
  std::filesystem::create_directory(cwd.path() / "tmp");
  const auto result =
      run_ralph({"demo", "-q"}, cwd.path(), {{"TMPDIR", (cwd.path() / "tmp").string()}});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("a test for it.\nDone: greet.sh"));
  EXPECT_THAT(result.out, HasSubstr("tests it.\nThe test shows"));
  EXPECT_THAT(result.out, HasSubstr("mark. Fixing greet().\nFixed: greet()"));
}

} // namespace
} // namespace ralph::testing
