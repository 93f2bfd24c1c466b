#include "support/recording_observer.h"
#include "support/recording_sink.h"

#include "ralph/agent/react_agent.h"
#include "ralph/tools/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace ralph::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Answers each chat call with the next queued response and records what it was sent.
class StubProvider final : public llm::Provider {
public:
  void push_text(std::string text) {
    llm::ChatResponse response;
    response.message.role = Role::assistant;
    response.message.content = std::move(text);
    response.stop_reason = llm::StopReason::end_turn;
    response.usage.input_tokens = 10;
    response.usage.output_tokens = 2;
    m_queue.emplace_back(std::move(response));
  }
  void push_calls(std::vector<ToolCall> calls) {
    llm::ChatResponse response;
    response.message.role = Role::assistant;
    response.message.tool_calls = std::move(calls);
    response.stop_reason = llm::StopReason::tool_use;
    response.usage.input_tokens = 10;
    response.usage.output_tokens = 3;
    m_queue.emplace_back(std::move(response));
  }
  void push_error(ErrorKind kind, std::string message) {
    Error error;
    error.kind = kind;
    error.message = std::move(message);
    m_queue.emplace_back(tl::unexpected(std::move(error)));
  }

  Result<llm::ChatResponse> chat(const llm::ChatRequest& request, llm::StreamObserver* observer,
                                 const CancelToken&) override {
    sent.emplace_back(request.messages.begin(), request.messages.end());
    tools_offered = request.tools.size();
    if (m_queue.empty()) {
      Error error;
      error.kind = ErrorKind::provider;
      error.message = "stub: no response queued";
      return tl::unexpected(error);
    }
    auto next = std::move(m_queue.front());
    m_queue.pop_front();
    if (next && observer != nullptr && !next->message.content.empty()) {
      const std::string& text = next->message.content;
      observer->on_text(text.substr(0, text.size() / 2));
      observer->on_text(text.substr(text.size() / 2));
    }
    return next;
  }
  std::string_view name() const override { return "stub"; }

  std::vector<std::vector<Message>> sent;
  std::size_t tools_offered = 0;

private:
  std::deque<Result<llm::ChatResponse>> m_queue;
};

// Echoes its arguments; optionally fires a cancel token when run.
class EchoTool final : public tools::Tool {
public:
  explicit EchoTool(int* runs, const CancelToken* cancel_on_run = nullptr)
      : m_runs(runs), m_cancel(cancel_on_run) {
    m_spec.name = "echo";
    m_spec.description = "echoes";
  }
  const ToolSpec& spec() const override { return m_spec; }
  tools::ToolResult run(std::string_view arguments, const tools::ToolContext&) override {
    ++*m_runs;
    if (m_cancel != nullptr) {
      m_cancel->cancel();
    }
    tools::ToolResult result;
    result.content = "echo " + std::string(arguments);
    return result;
  }

private:
  ToolSpec m_spec;
  int* m_runs;
  const CancelToken* m_cancel;
};

ToolCall call(std::string id, std::string name, std::string arguments) {
  return ToolCall{std::move(id), std::move(name), std::move(arguments)};
}

class ReactAgentTest : public ::testing::Test {
protected:
  ReactAgentTest() {
    registry.add(std::make_unique<EchoTool>(&runs, &cancel_from_tool));
    conversation.push_back(Message{.role = Role::user, .content = "do it"});
  }

  AgentOutcome run(int max_steps = 10, const CancelToken& cancel = CancelToken()) {
    ReactAgent agent(provider, registry, tools::ToolContext{}, {llm::ProviderKind::scripted, "m"},
                     AgentSettings{.max_steps = max_steps});
    return agent.run(conversation, cancel, observer, sink);
  }

  StubProvider provider;
  tools::Registry registry;
  testing::RecordingSink sink;
  testing::RecordingObserver observer;
  std::vector<Message> conversation;
  int runs = 0;
  CancelToken cancel_from_tool; // only fires when a test passes it to run()
};

TEST_F(ReactAgentTest, AnswerWithoutToolsEndsTheAttempt) {
  provider.push_text("All done.");
  const auto outcome = run();
  EXPECT_EQ(outcome.stop, AgentStop::answered);
  EXPECT_EQ(outcome.answer, "All done.");
  EXPECT_EQ(outcome.steps, 1);
  ASSERT_EQ(conversation.size(), 2u);
  EXPECT_EQ(conversation[1].role, Role::assistant);
  EXPECT_EQ(provider.tools_offered, 1u);
  EXPECT_THAT(sink.names(),
              ElementsAre("model_started", "text_delta", "text_delta", "agent_finished"));
  ASSERT_EQ(observer.model_calls.size(), 1U);
  EXPECT_EQ(observer.model_calls[0].step, 1);
  EXPECT_EQ(observer.model_calls[0].model, "scripted/m");
  EXPECT_EQ(observer.model_calls[0].stop_reason, llm::StopReason::end_turn);
  EXPECT_EQ(observer.model_calls[0].usage.input_tokens, 10);
}

TEST_F(ReactAgentTest, ToolResultsGoBackWithTheirCallIds) {
  provider.push_calls({call("c1", "echo", "{\"a\":1}"), call("c2", "echo", "{}")});
  provider.push_text("Echoed twice.");
  const auto outcome = run();

  EXPECT_EQ(outcome.stop, AgentStop::answered);
  EXPECT_EQ(outcome.tool_calls, 2);
  EXPECT_EQ(runs, 2);
  ASSERT_EQ(provider.sent.size(), 2u);
  const auto& second = provider.sent[1];
  ASSERT_EQ(second.size(), 4u);
  EXPECT_EQ(second[2].role, Role::tool);
  EXPECT_EQ(second[2].tool_call_id, "c1");
  EXPECT_EQ(second[2].content, "echo {\"a\":1}");
  EXPECT_EQ(second[3].tool_call_id, "c2");
  EXPECT_EQ(outcome.usage.input_tokens, 20);
  // The facts the loop steers on: each call with its result, in the step that made it.
  ASSERT_EQ(observer.tool_calls.size(), 2U);
  EXPECT_EQ(observer.tool_calls[0].step, 1);
  EXPECT_EQ(observer.tool_calls[0].call, call("c1", "echo", "{\"a\":1}"));
  EXPECT_EQ(observer.tool_calls[0].result.content, "echo {\"a\":1}");
  EXPECT_EQ(observer.tool_calls[1].call.id, "c2");
  EXPECT_EQ(observer.model_calls.size(), 2U);
  EXPECT_THAT(sink.names(),
              ElementsAre("model_started", "tool_started", "tool_started", "model_started",
                          "text_delta", "text_delta", "agent_finished"));
  EXPECT_EQ(outcome.usage.output_tokens, 5);
}

TEST_F(ReactAgentTest, UnknownToolIsAnErrorResultNotACrash) {
  provider.push_calls({call("c1", "teleport", "{}")});
  provider.push_text("Could not teleport.");
  const auto outcome = run();

  EXPECT_EQ(outcome.stop, AgentStop::answered);
  const Message& result = provider.sent[1].back();
  EXPECT_TRUE(result.is_error);
  EXPECT_THAT(result.content, HasSubstr("teleport"));
  EXPECT_THAT(result.content, HasSubstr("echo")); // names the tools that exist
}

TEST_F(ReactAgentTest, StepBudgetStopsWithEveryCallAnsweredAndTheLastNotRun) {
  for (int i = 0; i < 5; ++i) {
    provider.push_calls({call("c" + std::to_string(i), "echo", "{}")});
  }
  const auto outcome = run(2);

  EXPECT_EQ(outcome.stop, AgentStop::max_steps);
  EXPECT_EQ(outcome.steps, 2);
  EXPECT_EQ(provider.sent.size(), 2u);
  EXPECT_EQ(runs, 1) << "the call of the last step must not run: its result would go unread";
  ASSERT_EQ(conversation.back().role, Role::tool);
  EXPECT_EQ(conversation.back().tool_call_id, "c1");
  EXPECT_THAT(conversation.back().content, HasSubstr("step budget"));
}

TEST_F(ReactAgentTest, ProviderErrorFailsTheAttemptWithTheError) {
  provider.push_error(ErrorKind::provider, "openai: HTTP 401 invalid_api_key");
  const auto outcome = run();
  EXPECT_EQ(outcome.stop, AgentStop::failed);
  ASSERT_TRUE(outcome.error);
  EXPECT_THAT(outcome.error->message, HasSubstr("401"));
  EXPECT_EQ(sink.events.back().name(), std::string("error"));
  ASSERT_EQ(sink.of<event::Failure>().size(), 1U);
  EXPECT_EQ(sink.of<event::Failure>()[0].kind, ErrorKind::provider);
  EXPECT_TRUE(observer.model_calls.empty());
}

TEST_F(ReactAgentTest, CancelDuringToolsAnswersTheRemainingCalls) {
  provider.push_calls({call("c1", "echo", "{}"), call("c2", "echo", "{}")});
  const auto outcome = run(10, cancel_from_tool);

  EXPECT_EQ(outcome.stop, AgentStop::cancelled);
  EXPECT_EQ(runs, 1);
  ASSERT_EQ(conversation.size(), 4u);
  EXPECT_EQ(conversation[3].tool_call_id, "c2");
  EXPECT_THAT(conversation[3].content, HasSubstr("interrupted"));
  EXPECT_EQ(provider.sent.size(), 1u);
}

TEST_F(ReactAgentTest, CancelledBeforeStartMakesNoModelCall) {
  CancelToken cancel;
  cancel.cancel();
  const auto outcome = run(10, cancel);
  EXPECT_EQ(outcome.stop, AgentStop::cancelled);
  EXPECT_TRUE(provider.sent.empty());
}

} // namespace
} // namespace ralph::agent
