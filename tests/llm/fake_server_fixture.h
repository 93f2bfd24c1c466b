#pragma once

// A fake provider server, a real CurlTransport and a FakeClock, wired into providers.

#include "fake_provider/fake_provider_server.h"
#include "llm_test_support.h"
#include "support/fake_clock.h"

#include "ralph/http/curl_transport.h"
#include "ralph/llm/anthropic_provider.h"
#include "ralph/llm/factory.h"
#include "ralph/llm/openai_provider.h"
#include "ralph/llm/responses_provider.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace ralph::llm::testing {

using ralph::testing::FakeProviderServer;
using ralph::testing::FakeTurn;
using ralph::testing::Fault;

inline FakeTurn text_turn(std::string text) {
  FakeTurn turn;
  turn.text = std::move(text);
  return turn;
}

inline FakeTurn fault_turn(Fault fault) {
  FakeTurn turn;
  turn.fault = fault;
  turn.text = "This answer is long enough to be cut in the middle of the stream.";
  return turn;
}

class FakeServerTest : public ::testing::Test {
protected:
  ProviderConfig config(std::string provider, std::string base_url) {
    ProviderConfig out;
    out.spec = parse_model_spec(provider + "/test-model").value();
    out.base_url = std::move(base_url);
    out.api_key = k_key;
    out.retry.max_attempts = 3; // the tries these tests count
    return out;
  }

  std::unique_ptr<Provider> openai(OpenAiDialect dialect = OpenAiDialect::compat()) {
    return std::make_unique<OpenAiProvider>(
        dialect, config(std::string(dialect.name), server.base_url() + "/v1"), transport, clock);
  }

  std::unique_ptr<Provider> responses() {
    return std::make_unique<ResponsesProvider>(
        config("openai-responses", server.base_url() + "/v1"), transport, clock);
  }

  std::unique_ptr<Provider> anthropic() {
    return std::make_unique<AnthropicProvider>(config("anthropic", server.base_url()), transport,
                                               clock);
  }

  ChatRequest request(bool stream = true) {
    ChatRequest out;
    out.model = "test-model";
    out.system = "You are a test.";
    out.messages = messages;
    out.tools = {{"write_file", "Writes a file",
                  R"({"type":"object","properties":{"path":{"type":"string"}}})"}};
    out.stream = stream;
    return out;
  }

  static constexpr const char* k_key = "sk-test-key-4f1d2a";

  FakeProviderServer server;
  http::CurlTransport transport; // destroyed before the server: its connection closes first
  ralph::testing::FakeClock clock;
  CancelToken cancel;
  RecordingObserver observer;
  std::vector<Message> messages = {Message{.role = Role::user, .content = "Write a.txt"}};
};

} // namespace ralph::llm::testing
