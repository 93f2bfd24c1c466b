#pragma once

#include "ralph/core/clock.h"
#include "ralph/http/transport.h"
#include "ralph/llm/provider.h"
#include "ralph/llm/provider_config.h"

#include <string_view>

namespace ralph::llm {

// Anthropic Messages (`POST {base}/v1/messages`, default base https://api.anthropic.com),
// streaming or not. Thinking blocks come back in ChatResponse::message.thinking and are sent
// back unchanged on the next request.
class AnthropicProvider final : public Provider {
public:
  static constexpr std::string_view k_default_base_url = "https://api.anthropic.com";

  // `transport` and `clock` must outlive the provider.
  AnthropicProvider(ProviderConfig config, http::Transport& transport, Clock& clock);

  Result<ChatResponse> chat(const ChatRequest& request, StreamObserver* observer,
                            const CancelToken& cancel) override;
  std::string_view name() const override { return "anthropic"; }

private:
  ProviderConfig m_config;
  http::Transport& m_transport;
  Clock& m_clock;
};

} // namespace ralph::llm
