#pragma once

#include "ralph/core/clock.h"
#include "ralph/http/transport.h"
#include "ralph/llm/provider.h"
#include "ralph/llm/provider_config.h"

#include <string_view>

namespace ralph::llm {

// How one OpenAI-compatible backend differs on the wire: plain flags, not subclasses. Stream
// quirks (usage on the finish chunk, whole tool calls, reused indices, keep-alive comments) are
// accepted from every backend.
struct OpenAiDialect {
  std::string_view name;             // "openai", "openai-compat", "ollama"
  std::string_view default_base_url; // empty: ProviderConfig::base_url is required
  bool max_completion_tokens = true; // false: the older `max_tokens` (llama.cpp, vLLM, Ollama)
  bool tool_choice = true;           // send `tool_choice:"auto"` with tools (Ollama ignores it)
  bool bearer_without_key = false;   // send `Authorization: Bearer ` even when the key is empty
  // Said when the base URL refuses the connection (then not retried): a local server's hint.
  std::string_view refused_hint;

  static OpenAiDialect openai();
  static OpenAiDialect compat();
  static OpenAiDialect ollama();
};

// OpenAI Chat Completions (`POST {base}/chat/completions`), streaming or not.
class OpenAiProvider final : public Provider {
public:
  // `transport` and `clock` must outlive the provider.
  OpenAiProvider(OpenAiDialect dialect, ProviderConfig config, http::Transport& transport,
                 Clock& clock);

  Result<ChatResponse> chat(const ChatRequest& request, StreamObserver* observer,
                            const CancelToken& cancel) override;
  std::string_view name() const override { return m_dialect.name; }

private:
  OpenAiDialect m_dialect;
  ProviderConfig m_config;
  http::Transport& m_transport;
  Clock& m_clock;
};

} // namespace ralph::llm
