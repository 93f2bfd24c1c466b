#pragma once

#include "ralph/core/clock.h"
#include "ralph/http/curl_transport.h"
#include "ralph/llm/factory.h"

#include <functional>
#include <memory>

namespace ralph::testing {

// A factory of real HTTP providers for `config`, each owning its libcurl transport: what the CLI
// wires up for sub-queries, for tests of code below it. `clock` must outlive every provider.
inline std::function<Result<std::unique_ptr<llm::Provider>>()>
http_provider_factory(llm::ProviderConfig config, Clock& clock) {
  class Owning final : public llm::Provider {
  public:
    explicit Owning(std::unique_ptr<http::Transport> transport)
        : m_transport(std::move(transport)) {}
    Result<llm::ChatResponse> chat(const llm::ChatRequest& request, llm::StreamObserver* observer,
                                   const CancelToken& cancel) override {
      return m_provider->chat(request, observer, cancel);
    }
    std::string_view name() const override { return m_provider->name(); }
    std::unique_ptr<http::Transport> m_transport; // first: destroyed after the provider
    std::unique_ptr<llm::Provider> m_provider;
  };
  return [config = std::move(config), &clock]() -> Result<std::unique_ptr<llm::Provider>> {
    auto owning = std::make_unique<Owning>(std::make_unique<http::CurlTransport>());
    auto provider = llm::make_provider(config, *owning->m_transport, clock);
    if (!provider) {
      return tl::unexpected(provider.error());
    }
    owning->m_provider = std::move(*provider);
    return std::unique_ptr<llm::Provider>(std::move(owning));
  };
}

} // namespace ralph::testing
