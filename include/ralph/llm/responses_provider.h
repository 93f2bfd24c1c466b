#pragma once

#include "ralph/core/clock.h"
#include "ralph/http/transport.h"
#include "ralph/llm/provider.h"
#include "ralph/llm/provider_config.h"

#include <string_view>

namespace ralph::llm {

// OpenAI Responses API (`POST {base}/responses`, default base https://api.openai.com/v1),
// streaming or not. Stateless: `store:false`, every call resends the whole conversation
// (assistant tool calls as `function_call` items, tool results as `function_call_output`).
// Reasoning items are read (as thinking) but not sent back: without `store` they would need the
// encrypted content, which ralph does not ask for.
class ResponsesProvider final : public Provider {
public:
  // `transport` and `clock` must outlive the provider.
  ResponsesProvider(ProviderConfig config, http::Transport& transport, Clock& clock);

  Result<ChatResponse> chat(const ChatRequest& request, StreamObserver* observer,
                            const CancelToken& cancel) override;
  std::string_view name() const override { return "openai-responses"; }

private:
  ProviderConfig m_config;
  http::Transport& m_transport;
  Clock& m_clock;
};

} // namespace ralph::llm
