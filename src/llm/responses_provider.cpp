#include "ralph/llm/responses_provider.h"

#include "llm/base_url.h"
#include "llm/body_reader.h"
#include "llm/exchange.h"
#include "llm/responses_request.h"
#include "llm/responses_response.h"
#include "llm/responses_stream.h"
#include "llm/usage_estimate.h"

namespace ralph::llm {
namespace {

constexpr std::string_view k_default_base_url = "https://api.openai.com/v1";

} // namespace

ResponsesProvider::ResponsesProvider(ProviderConfig config, http::Transport& transport,
                                     Clock& clock)
    : m_config(std::move(config)), m_transport(transport), m_clock(clock) {}

Result<ChatResponse> ResponsesProvider::chat(const ChatRequest& request, StreamObserver* observer,
                                             const CancelToken& cancel) {
  const std::string_view base = m_config.base_url.empty() ? k_default_base_url : m_config.base_url;
  http::Request http_request;
  http_request.url = join_url(base, "/responses");
  http_request.headers.emplace_back("Content-Type", "application/json");
  http_request.headers.emplace_back("Accept",
                                    request.stream ? "text/event-stream" : "application/json");
  http_request.headers.emplace_back("Authorization", "Bearer " + m_config.api_key);
  http_request.body = build_responses_body(request);
  http_request.connect_timeout = m_config.connect_timeout;
  http_request.idle_timeout = m_config.idle_timeout;

  const ExchangeContext context{name(), m_config.api_key, m_config.retry, m_transport, m_clock};
  if (request.stream) {
    ResponsesStreamReader reader(name(), m_config.api_key, observer);
    return with_usage(request, exchange(context, http_request, reader, observer, cancel));
  }
  BodyReader reader(read_responses_body, name(), m_config.api_key, observer);
  return with_usage(request, exchange(context, http_request, reader, observer, cancel));
}

} // namespace ralph::llm
