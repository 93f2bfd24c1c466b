#include "ralph/llm/anthropic_provider.h"

#include "llm/anthropic_request.h"
#include "llm/anthropic_response.h"
#include "llm/anthropic_stream.h"
#include "llm/base_url.h"
#include "llm/body_reader.h"
#include "llm/exchange.h"
#include "llm/usage_estimate.h"

namespace ralph::llm {

AnthropicProvider::AnthropicProvider(ProviderConfig config, http::Transport& transport,
                                     Clock& clock)
    : m_config(std::move(config)), m_transport(transport), m_clock(clock) {}

Result<ChatResponse> AnthropicProvider::chat(const ChatRequest& request, StreamObserver* observer,
                                             const CancelToken& cancel) {
  const std::string_view base =
      m_config.base_url.empty() ? k_default_base_url : std::string_view(m_config.base_url);
  http::Request http_request;
  // Accept a base that already names the version ("http://host/v1") as well as the bare host.
  http_request.url = join_url(base, ends_with_version(base) ? "/messages" : "/v1/messages");
  http_request.headers.emplace_back("content-type", "application/json");
  http_request.headers.emplace_back("anthropic-version", "2023-06-01");
  if (!m_config.api_key.empty()) {
    http_request.headers.emplace_back("x-api-key", m_config.api_key);
  }
  http_request.body = build_anthropic_body(request);
  http_request.connect_timeout = m_config.connect_timeout;
  http_request.idle_timeout = m_config.idle_timeout;

  const ExchangeContext context{name(), m_config.api_key, m_config.retry, m_transport, m_clock};
  if (request.stream) {
    AnthropicStreamReader reader(m_config.api_key, observer);
    return with_usage(request, exchange(context, http_request, reader, observer, cancel));
  }
  BodyReader reader(read_anthropic_body, "anthropic", m_config.api_key, observer);
  return with_usage(request, exchange(context, http_request, reader, observer, cancel));
}

} // namespace ralph::llm
