#pragma once

#include "llm/exchange.h"

#include "ralph/llm/provider.h"

#include <optional>
#include <string_view>

namespace ralph::llm {

// Reads a whole (non-streaming) body of one API: its answer, or why not. `provider` names it in
// errors; `secret` never appears in them.
using ReadBody = Result<ChatResponse> (*)(std::string_view provider, std::string_view secret,
                                          const http::Response& response);

// Bodies of the three APIs (openai_response.cpp, anthropic_response.cpp, responses_response.cpp).
Result<ChatResponse> read_openai_body(std::string_view provider, std::string_view secret,
                                      const http::Response& response);
Result<ChatResponse> read_anthropic_body(std::string_view provider, std::string_view secret,
                                         const http::Response& response);
Result<ChatResponse> read_responses_body(std::string_view provider, std::string_view secret,
                                         const http::Response& response);

// A non-streaming answer, judged whole in finish(), then shown to the observer in one go as a
// stream would have shown it: thinking, text, tool calls.
class BodyReader final : public ResponseReader {
public:
  BodyReader(ReadBody read, std::string_view provider, std::string_view secret,
             StreamObserver* observer)
      : m_read(read), m_provider(provider), m_secret(secret), m_observer(observer) {}

  bool streaming() const override { return false; }
  void begin() override {}
  bool feed(std::string_view) override { return true; }
  const std::optional<Error>& failure() const override { return m_failure; }
  Result<ChatResponse> finish(const http::Response& response) override;

private:
  ReadBody m_read;
  std::string_view m_provider;
  std::string_view m_secret;
  StreamObserver* m_observer;
  std::optional<Error> m_failure; // never set: a body is judged whole in finish()
};

} // namespace ralph::llm
