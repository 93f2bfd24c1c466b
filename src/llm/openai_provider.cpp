#include "ralph/llm/openai_provider.h"

#include "llm/base_url.h"
#include "llm/body_reader.h"
#include "llm/exchange.h"
#include "llm/openai_request.h"
#include "llm/openai_response.h"
#include "llm/openai_stream.h"
#include "llm/usage_estimate.h"

#include <fmt/format.h>

namespace ralph::llm {

OpenAiDialect OpenAiDialect::openai() {
  OpenAiDialect dialect;
  dialect.name = "openai";
  dialect.default_base_url = "https://api.openai.com/v1";
  dialect.bearer_without_key = true;
  return dialect;
}

OpenAiDialect OpenAiDialect::compat() {
  OpenAiDialect dialect;
  dialect.name = "openai-compat";
  dialect.max_completion_tokens = false; // older llama.cpp builds ignore it: unlimited output
  return dialect;
}

OpenAiDialect OpenAiDialect::ollama() {
  OpenAiDialect dialect;
  dialect.name = "ollama";
  dialect.default_base_url = "http://localhost:11434/v1";
  dialect.max_completion_tokens = false; // not in Ollama's request struct: silently ignored
  dialect.tool_choice = false;
  dialect.refused_hint = "is Ollama running? start it with `ollama serve` (or give its address "
                         "with --base-url)";
  return dialect;
}

OpenAiProvider::OpenAiProvider(OpenAiDialect dialect, ProviderConfig config,
                               http::Transport& transport, Clock& clock)
    : m_dialect(dialect), m_config(std::move(config)), m_transport(transport), m_clock(clock) {}

Result<ChatResponse> OpenAiProvider::chat(const ChatRequest& request, StreamObserver* observer,
                                          const CancelToken& cancel) {
  const std::string_view base =
      m_config.base_url.empty() ? m_dialect.default_base_url : m_config.base_url;
  if (base.empty()) {
    return fail(ErrorKind::config, fmt::format("{}: no base URL configured", m_dialect.name));
  }
  http::Request http_request;
  http_request.url = join_url(base, "/chat/completions");
  http_request.headers.emplace_back("Content-Type", "application/json");
  http_request.headers.emplace_back("Accept",
                                    request.stream ? "text/event-stream" : "application/json");
  if (!m_config.api_key.empty() || m_dialect.bearer_without_key) {
    http_request.headers.emplace_back("Authorization", "Bearer " + m_config.api_key);
  }
  http_request.body = build_openai_body(m_dialect, request);
  http_request.connect_timeout = m_config.connect_timeout;
  http_request.idle_timeout = m_config.idle_timeout;

  const ExchangeContext context{.provider = m_dialect.name,
                                .secret = m_config.api_key,
                                .policy = m_config.retry,
                                .transport = m_transport,
                                .clock = m_clock,
                                .refused_hint = m_dialect.refused_hint};
  if (request.stream) {
    OpenAiStreamReader reader(m_dialect.name, m_config.api_key, observer);
    return with_usage(request, exchange(context, http_request, reader, observer, cancel));
  }
  BodyReader reader(read_openai_body, m_dialect.name, m_config.api_key, observer);
  return with_usage(request, exchange(context, http_request, reader, observer, cancel));
}

} // namespace ralph::llm
