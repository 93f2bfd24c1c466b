#pragma once

#include "support/recording_observer.h"
#include "support/recording_sink.h"

// Fakes for the RLM agent's tests: a provider that answers from a queue and records every
// request whole, a sandbox whose executions a test scripts, an event recorder, and a fixture
// wiring them into an RlmAgent.

#include "ralph/llm/provider.h"
#include "ralph/rlm/rlm_agent.h"
#include "ralph/rlm/sandbox.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace ralph::rlm::testing {

// A request as the provider received it (the messages are copied: the span does not outlive it).
struct SentRequest {
  std::string system;
  std::vector<Message> messages;
  std::vector<ToolSpec> tools;
  bool stream = true;
};

// Answers each chat call with the next queued response and records what it was sent.
class StubProvider final : public llm::Provider {
public:
  void push_text(std::string text) {
    llm::ChatResponse response;
    response.message.content = std::move(text);
    response.stop_reason = llm::StopReason::end_turn;
    response.usage = {.input_tokens = 10, .output_tokens = 2};
    m_queue.emplace_back(std::move(response));
  }
  void push_calls(std::vector<ToolCall> calls, std::string note = {}) {
    llm::ChatResponse response;
    response.message.content = std::move(note);
    response.message.tool_calls = std::move(calls);
    response.stop_reason = llm::StopReason::tool_use;
    response.usage = {.input_tokens = 10, .output_tokens = 3};
    m_queue.emplace_back(std::move(response));
  }
  void push_error(ErrorKind kind, std::string message) {
    Error error;
    error.kind = kind;
    error.message = std::move(message);
    m_queue.emplace_back(tl::unexpected(std::move(error)));
  }

  Result<llm::ChatResponse> chat(const llm::ChatRequest& request, llm::StreamObserver* observer,
                                 const CancelToken& cancel) override {
    sent.push_back(SentRequest{request.system,
                               {request.messages.begin(), request.messages.end()},
                               request.tools,
                               request.stream});
    if (on_chat) {
      on_chat(cancel);
    }
    if (m_queue.empty()) {
      Error error;
      error.kind = ErrorKind::provider;
      error.message = "stub: no response queued";
      return tl::unexpected(error);
    }
    auto next = std::move(m_queue.front());
    m_queue.pop_front();
    if (next && observer != nullptr && !next->message.content.empty()) {
      observer->on_text(next->message.content);
    }
    return next;
  }
  std::string_view name() const override { return "stub"; }

  std::vector<SentRequest> sent;
  std::function<void(const CancelToken&)> on_chat; // e.g. to cancel during a call

private:
  std::deque<Result<llm::ChatResponse>> m_queue;
};

// A sandbox whose executions a test decides: `handler` gets the code and the sub-query function
// the agent gave the factory. By default it echoes the code.
class FakeSandbox final : public Sandbox {
public:
  using Handler = std::function<ExecResult(std::string_view code, const SubQueryFn& sub_query,
                                           const CancelToken& cancel)>;

  FakeSandbox(SubQueryFn sub_query, Handler handler, std::vector<std::string>* executed)
      : m_sub_query(std::move(sub_query)), m_handler(std::move(handler)), m_executed(executed) {}

  ExecResult execute(std::string_view code, const CancelToken& cancel) override {
    m_executed->emplace_back(code);
    if (m_handler) {
      return m_handler(code, m_sub_query, cancel);
    }
    ExecResult result;
    result.output = "ran: " + std::string(code);
    return result;
  }
  std::string_view language() const override { return "lua"; }
  std::string api_description() const override { return "doc:sub(i, j) -- FAKE API TEXT"; }

private:
  SubQueryFn m_sub_query;
  Handler m_handler;
  std::vector<std::string>* m_executed;
};

// Builds FakeSandboxes, counting them and recording every execution.
struct FakeSandboxes {
  FakeSandbox::Handler handler;
  std::vector<std::string> executed;
  int built = 0;

  std::function<std::unique_ptr<Sandbox>(SubQueryFn)> factory() {
    return [this](SubQueryFn sub_query) -> std::unique_ptr<Sandbox> {
      ++built;
      return std::make_unique<FakeSandbox>(std::move(sub_query), handler, &executed);
    };
  }
};

// A call of the `lua` tool running `code`.
inline ToolCall lua_call(std::string id, const std::string& code) {
  return ToolCall{std::move(id), "lua", nlohmann::json{{"code", code}}.dump()};
}

inline Message user_message(std::string text) {
  Message message;
  message.role = Role::user;
  message.content = std::move(text);
  return message;
}

// Every tool call of the conversation has exactly one result.
inline bool every_call_answered(const std::vector<Message>& conversation) {
  std::vector<std::string> open;
  for (const Message& message : conversation) {
    for (const ToolCall& call : message.tool_calls) {
      open.push_back(call.id);
    }
    if (message.role == Role::tool) {
      const auto found = std::find(open.begin(), open.end(), message.tool_call_id);
      if (found == open.end()) {
        return false;
      }
      open.erase(found);
    }
  }
  return open.empty();
}

// An RlmAgent over a StubProvider and FakeSandboxes, with a sub-query function that answers
// every question and reports 100 input and 7 output tokens.
class RlmAgentFixture : public ::testing::Test {
protected:
  RlmAgentFixture() {
    options.model = {llm::ProviderKind::scripted, "m"};
    options.instructions = "Answer in three bullet points.";
    options.document_name = "contract.txt";
    options.document_bytes = 123456;
    conversation.push_back(user_message("Who signed the contract?"));
  }

  agent::AgentOutcome run(const CancelToken& cancel = CancelToken()) {
    RlmAgent agent(provider, sandboxes.factory(), sub_query, options);
    return agent.run(conversation, cancel, observer, sink);
  }

  StubProvider provider;
  FakeSandboxes sandboxes;
  SubQueryFn sub_query = [](const SubQuery& query) -> Result<SubAnswer> {
    return SubAnswer{"sub: " + query.query, Usage{.input_tokens = 100, .output_tokens = 7}};
  };
  RlmOptions options;
  ralph::testing::RecordingSink sink;
  ralph::testing::RecordingObserver observer;
  std::vector<Message> conversation;
};

} // namespace ralph::rlm::testing
