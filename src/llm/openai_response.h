#pragma once

#include "llm/exchange.h"

#include "ralph/llm/provider.h"

#include <nlohmann/json_fwd.hpp>

#include <string_view>

namespace ralph::llm {

// finish_reason -> StopReason; unknown values (and none) map to StopReason::unknown.
StopReason openai_stop_reason(std::string_view finish_reason);

// `usage` of a response or chunk; cached_tokens is already part of prompt_tokens.
Usage openai_usage(const nlohmann::json& usage);

// Gives calls the model left without an id one ("call_1", ...) and turns empty arguments
// into "{}", so every call can be answered.
void complete_tool_calls(std::vector<ToolCall>& calls);

// Reads a non-streaming Chat Completions body, then reports it to the observer in one go.
class OpenAiBodyReader final : public ResponseReader {
public:
  OpenAiBodyReader(std::string_view provider, std::string_view secret, StreamObserver* observer)
      : m_provider(provider), m_secret(secret), m_observer(observer) {}

  bool streaming() const override { return false; }
  void begin() override {}
  bool feed(std::string_view) override { return true; }
  const std::optional<Error>& failure() const override { return m_failure; }
  Result<ChatResponse> finish(const http::Response& response) override;

private:
  std::string_view m_provider;
  std::string_view m_secret;
  StreamObserver* m_observer;
  std::optional<Error> m_failure; // never set: a body is judged whole in finish()
};

} // namespace ralph::llm
