#include "rlm/rlm_test_support.h"

#include "ralph/rlm/rlm_agent.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ralph::rlm {
namespace {

using agent::AgentOutcome;
using agent::AgentStop;
using testing::every_call_answered;
using testing::lua_call;
using testing::user_message;
using RlmAgentTest = testing::RlmAgentFixture;
using ::testing::HasSubstr;

TEST_F(RlmAgentTest, AnswersAfterTwoExecutionsWithTheirOutputsAsToolResults) {
  provider.push_calls({lua_call("c1", "print(#doc)")}, "First the size.");
  provider.push_calls({lua_call("c2", "print(doc:sub(1, 10))")});
  provider.push_text("Alice and Bob signed it.");
  const AgentOutcome outcome = run();

  EXPECT_EQ(outcome.stop, AgentStop::answered);
  EXPECT_EQ(outcome.answer, "Alice and Bob signed it.");
  EXPECT_EQ(outcome.steps, 3);
  EXPECT_EQ(outcome.tool_calls, 2);
  EXPECT_EQ(outcome.usage.input_tokens, 30);
  EXPECT_EQ(sandboxes.executed, (std::vector<std::string>{"print(#doc)", "print(doc:sub(1, 10))"}));

  ASSERT_EQ(provider.sent.size(), 3u);
  const auto& first = provider.sent[0];
  EXPECT_THAT(first.system, ::testing::StartsWith("Answer in three bullet points."));
  EXPECT_THAT(first.system, HasSubstr("\"contract.txt\" (123456 bytes, 120.6 KiB)"));
  EXPECT_THAT(first.system, HasSubstr("NOT in this conversation"));
  EXPECT_THAT(first.system, HasSubstr("llm_query"));
  EXPECT_THAT(first.system, HasSubstr("without calling the tool"));
  ASSERT_EQ(first.tools.size(), 1u);
  EXPECT_EQ(first.tools[0].name, "lua");
  EXPECT_THAT(first.tools[0].description, HasSubstr("FAKE API TEXT"));
  EXPECT_THAT(first.tools[0].parameters, HasSubstr(R"("required":["code"])"));

  const Message& result1 = provider.sent[1].messages.back();
  EXPECT_EQ(result1.role, Role::tool);
  EXPECT_EQ(result1.tool_call_id, "c1");
  EXPECT_EQ(result1.content, "ran: print(#doc)");
  EXPECT_FALSE(result1.is_error);
  const Message& result2 = provider.sent[2].messages.back();
  EXPECT_EQ(result2.tool_call_id, "c2");
  EXPECT_EQ(result2.content, "ran: print(doc:sub(1, 10))");

  ASSERT_EQ(conversation.size(), 6u);
  EXPECT_EQ(conversation.back().role, Role::assistant);
  EXPECT_EQ(conversation.back().content, "Alice and Bob signed it.");

  const auto started = sink.of<event::ToolStarted>();
  const auto& finished = observer.tool_calls;
  ASSERT_EQ(started.size(), 2u);
  ASSERT_EQ(finished.size(), 2u);
  EXPECT_EQ(started[0].call.name, "lua");
  EXPECT_EQ(started[0].call.id, "c1");
  EXPECT_THAT(started[0].call.arguments, HasSubstr("print(#doc)"));
  EXPECT_EQ(finished[1].call.id, "c2");
  EXPECT_EQ(finished[1].result.content, "ran: print(doc:sub(1, 10))");
  EXPECT_GE(finished[1].result.duration.count(), 0);
  ASSERT_EQ(observer.model_calls.size(), 3u);
  EXPECT_EQ(observer.model_calls[2].model, "scripted/m");
  ASSERT_EQ(sink.of<event::AgentFinished>().size(), 1u);
  EXPECT_EQ(sink.of<event::AgentFinished>()[0].stop, "answered");
}

TEST_F(RlmAgentTest, ParallelCallsOfOneTurnRunInOrder) {
  provider.push_calls({lua_call("c1", "x = 1"), lua_call("c2", "print(x)")});
  provider.push_text("done");
  const AgentOutcome outcome = run();

  EXPECT_EQ(outcome.tool_calls, 2);
  EXPECT_EQ(sandboxes.executed, (std::vector<std::string>{"x = 1", "print(x)"}));
  const auto& second = provider.sent[1].messages;
  ASSERT_EQ(second.size(), 4u);
  EXPECT_EQ(second[2].tool_call_id, "c1");
  EXPECT_EQ(second[3].tool_call_id, "c2");
}

TEST_F(RlmAgentTest, SandboxErrorsGoBackAsErrorResultsAndTheLoopGoesOn) {
  sandboxes.handler = [](std::string_view code, const SubQueryFn&, const CancelToken&) {
    ExecResult result;
    if (code == "boom()") {
      result.output = "[string \"code\"]:1: attempt to call a nil value (global 'boom')";
      result.error = true;
    } else if (code == "while true do end") {
      result.output = "[execution stopped after 30 s (time limit). The sandbox was reset]";
      result.timed_out = true;
      result.reset = true;
    } else {
      result.output = "fine";
    }
    return result;
  };
  provider.push_calls({lua_call("c1", "boom()")});
  provider.push_calls({lua_call("c2", "while true do end")});
  provider.push_calls({lua_call("c3", "print(1)")});
  provider.push_text("recovered");
  const AgentOutcome outcome = run();

  EXPECT_EQ(outcome.stop, AgentStop::answered);
  EXPECT_EQ(outcome.tool_calls, 3);
  const Message& error = provider.sent[1].messages.back();
  EXPECT_TRUE(error.is_error);
  EXPECT_THAT(error.content, HasSubstr("attempt to call a nil value"));
  const Message& timeout = provider.sent[2].messages.back();
  EXPECT_TRUE(timeout.is_error);
  EXPECT_EQ(timeout.content, "[execution stopped after 30 s (time limit). The sandbox was reset]");
  const Message& fine = provider.sent[3].messages.back();
  EXPECT_FALSE(fine.is_error);
  EXPECT_EQ(fine.content, "fine");
  EXPECT_TRUE(observer.tool_calls.at(0).result.is_error);
}

TEST_F(RlmAgentTest, EmptyOutputIsSaidSoAndBrokenUtf8IsRepaired) {
  sandboxes.handler = [](std::string_view code, const SubQueryFn&, const CancelToken&) {
    ExecResult result;
    result.output = code == "x = 1" ? "" : std::string("caf\xC3", 4); // a slice cut mid-character
    return result;
  };
  provider.push_calls({lua_call("c1", "x = 1"), lua_call("c2", "print(doc:slice(1, 4))")});
  provider.push_text("done");
  run();

  const auto& results = provider.sent[1].messages;
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[2].content, "(no output)");
  EXPECT_EQ(results[3].content, "caf\xEF\xBF\xBD");
}

TEST_F(RlmAgentTest, MisusedToolIsAnErrorResultNotACrash) {
  provider.push_calls({ToolCall{"c1", "python", R"x({"code":"print(1)"})x"},
                       ToolCall{"c2", "lua", R"x({"source":"print(1)"})x"},
                       ToolCall{"c3", "lua", R"x({"code": print(1)})x"}});
  provider.push_text("ok");
  const AgentOutcome outcome = run();

  EXPECT_EQ(outcome.stop, AgentStop::answered);
  EXPECT_TRUE(sandboxes.executed.empty());
  const auto& results = provider.sent[1].messages;
  ASSERT_EQ(results.size(), 5u);
  EXPECT_TRUE(results[2].is_error);
  EXPECT_THAT(results[2].content, HasSubstr("unknown tool `python`; the only tool is `lua`"));
  EXPECT_TRUE(results[3].is_error);
  EXPECT_THAT(results[3].content, HasSubstr("missing the string argument `code`"));
  EXPECT_TRUE(results[4].is_error);
  EXPECT_THAT(results[4].content, HasSubstr("takes {\"code\""));
}

TEST_F(RlmAgentTest, EachAttemptGetsAFreshSandbox) {
  provider.push_calls({lua_call("c1", "x = 1")});
  provider.push_text("first");
  run();
  conversation.push_back(user_message("Feedback: cite the signature block."));
  provider.push_text("second");
  const AgentOutcome outcome = run();

  EXPECT_EQ(outcome.answer, "second");
  EXPECT_EQ(sandboxes.built, 2);
  EXPECT_TRUE(every_call_answered(conversation));
}

TEST_F(RlmAgentTest, ProviderErrorFailsTheAttemptWithTheError) {
  provider.push_calls({lua_call("c1", "print(1)")});
  provider.push_error(ErrorKind::provider, "openai: HTTP 401 invalid_api_key");
  const AgentOutcome outcome = run();

  EXPECT_EQ(outcome.stop, AgentStop::failed);
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_EQ(outcome.error->message, "openai: HTTP 401 invalid_api_key");
  ASSERT_EQ(sink.of<event::Failure>().size(), 1u);
  EXPECT_EQ(sink.of<event::Failure>()[0].message, "openai: HTTP 401 invalid_api_key");
  EXPECT_TRUE(every_call_answered(conversation));
}

TEST_F(RlmAgentTest, NoSandboxFailsTheAttemptWithoutACrash) {
  RlmAgent agent(
      provider, [](const SubQueryFn&) { return std::unique_ptr<Sandbox>(); }, sub_query, options);
  const AgentOutcome outcome = agent.run(conversation, CancelToken(), observer, sink);

  EXPECT_EQ(outcome.stop, AgentStop::failed);
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_THAT(outcome.error->message, HasSubstr("sandbox"));
  EXPECT_TRUE(provider.sent.empty());
}

TEST_F(RlmAgentTest, CancelledBeforeStartingCallsNoModel) {
  CancelToken cancel;
  cancel.cancel();
  const AgentOutcome outcome = run(cancel);

  EXPECT_EQ(outcome.stop, AgentStop::cancelled);
  EXPECT_TRUE(provider.sent.empty());
}

TEST_F(RlmAgentTest, CancelDuringAnExecutionAnswersTheRestAndStops) {
  sandboxes.handler = [](std::string_view, const SubQueryFn& ask, const CancelToken& cancel) {
    cancel.cancel(); // as a deadline or Ctrl-C would, while the code runs
    ExecResult result;
    const auto answer = ask(SubQuery{"q", "c"});
    result.output = answer ? answer->text : answer.error().message;
    result.error = !answer;
    return result;
  };
  provider.push_calls({lua_call("c1", "slow()"), lua_call("c2", "never()")});
  provider.push_text("not reached");
  const AgentOutcome outcome = run();

  EXPECT_EQ(outcome.stop, AgentStop::cancelled);
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_EQ(outcome.error->kind, ErrorKind::cancelled);
  EXPECT_EQ(provider.sent.size(), 1u);
  EXPECT_EQ(sandboxes.executed, std::vector<std::string>{"slow()"});
  EXPECT_TRUE(every_call_answered(conversation));
  EXPECT_THAT(conversation[2].content, HasSubstr("interrupted")) << "the sub-query was refused";
  EXPECT_EQ(conversation.back().tool_call_id, "c2");
  EXPECT_THAT(conversation.back().content, HasSubstr("[not run: interrupted]"));
}

TEST_F(RlmAgentTest, CancelDuringTheModelCallEndsCancelled) {
  provider.on_chat = [](const CancelToken& cancel) { cancel.cancel(); };
  provider.push_error(ErrorKind::cancelled, "interrupted");
  const AgentOutcome outcome = run();

  EXPECT_EQ(outcome.stop, AgentStop::cancelled);
  EXPECT_TRUE(sink.of<event::Failure>().empty()) << "a cancel is not reported as an error";
}

} // namespace
} // namespace ralph::rlm
