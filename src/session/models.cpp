#include "ralph/session/models.h"

#include "ralph/core/try.h"
#include "ralph/llm/factory.h"
#include "ralph/session/runtime.h"

#include <utility>

namespace ralph::session {
namespace {

// A provider that owns the transport it talks through, for providers made on helper threads.
class OwningProvider final : public llm::Provider {
public:
  OwningProvider(std::unique_ptr<http::Transport> transport,
                 std::unique_ptr<llm::Provider> provider)
      : m_transport(std::move(transport)), m_provider(std::move(provider)) {}

  Result<llm::ChatResponse> chat(const llm::ChatRequest& request, llm::StreamObserver* observer,
                                 const CancelToken& cancel) override {
    return m_provider->chat(request, observer, cancel);
  }
  std::string_view name() const override { return m_provider->name(); }

private:
  std::unique_ptr<http::Transport> m_transport; // declared first: destroyed after the provider
  std::unique_ptr<llm::Provider> m_provider;
};

// Another user's turn of one provider: calls wait for each other.
class SharedProvider final : public llm::Provider {
public:
  SharedProvider(llm::Provider& provider, std::mutex& mutex)
      : m_provider(provider), m_mutex(mutex) {}

  Result<llm::ChatResponse> chat(const llm::ChatRequest& request, llm::StreamObserver* observer,
                                 const CancelToken& cancel) override {
    const std::lock_guard lock(m_mutex);
    return m_provider.chat(request, observer, cancel);
  }
  std::string_view name() const override { return m_provider.name(); }

private:
  llm::Provider& m_provider;
  std::mutex& m_mutex;
};

} // namespace

Result<llm::ProviderConfig> ModelProviders::settings(const std::string& model,
                                                     const std::string& base_url) {
  TRY_ASSIGN(llm::ModelSpec spec, llm::parse_model_spec(model == "agent" ? m_config.model : model));
  llm::ProviderConfig provider;
  provider.base_url = base_url;
  if (provider.base_url.empty()) {
    const auto agent = llm::parse_model_spec(m_config.model);
    if (agent && agent->provider == spec.provider) {
      provider.base_url = m_config.base_url;
    }
  }
  switch (spec.provider) {
  case llm::ProviderKind::anthropic:
    provider.api_key = m_runtime.environment().get("ANTHROPIC_API_KEY").value_or("");
    break;
  case llm::ProviderKind::openai:
  case llm::ProviderKind::openai_responses:
    provider.api_key = m_runtime.environment().get("OPENAI_API_KEY").value_or("");
    if (provider.base_url.empty()) {
      provider.base_url = m_runtime.environment().get("OPENAI_BASE_URL").value_or("");
    }
    break;
  case llm::ProviderKind::openai_compat:
    provider.api_key = m_runtime.environment().get("OPENAI_API_KEY").value_or("");
    break;
  case llm::ProviderKind::ollama:
  case llm::ProviderKind::scripted:
    break;
  }
  provider.spec = std::move(spec);
  provider.retry.max_attempts = m_config.http.max_retries + 1;
  provider.connect_timeout = m_config.http.connect_timeout;
  provider.idle_timeout = m_config.http.idle_timeout;
  return provider;
}

Result<Model> ModelProviders::make(const std::string& model, const std::string& base_url) {
  TRY_ASSIGN(llm::ProviderConfig config, settings(model, base_url));
  if (config.spec.provider != llm::ProviderKind::scripted) {
    m_runtime.start_http();
  }
  auto& transport = m_transports.emplace_back(m_io.make_transport());
  TRY_ASSIGN(auto provider, llm::make_provider(config, *transport, m_io.clock()));
  llm::Provider& made = *m_providers.emplace_back(std::move(provider));
  return Model{&made, std::move(config.spec)};
}

rlm::ProviderFactory ModelProviders::factory(llm::ProviderConfig config, const Model& agent) {
  if (config.spec.provider == llm::ProviderKind::scripted) {
    return rlm::ProviderFactory([this, provider = agent.provider]() {
      return Result<std::unique_ptr<llm::Provider>>(
          std::make_unique<SharedProvider>(*provider, m_shared));
    });
  }
  m_runtime.start_http();
  return rlm::ProviderFactory(
      [config = std::move(config), &io = m_io]() -> Result<std::unique_ptr<llm::Provider>> {
        auto transport = io.make_transport();
        TRY_ASSIGN(auto provider, llm::make_provider(config, *transport, io.clock()));
        return std::make_unique<OwningProvider>(std::move(transport), std::move(provider));
      });
}

} // namespace ralph::session
