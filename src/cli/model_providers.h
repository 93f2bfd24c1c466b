#pragma once

#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/engine/io.h"
#include "ralph/http/curl_transport.h"
#include "ralph/llm/provider.h"
#include "ralph/llm/provider_config.h"
#include "ralph/rlm/sub_query.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ralph::cli {

// A model a run uses: the provider serving it (owned by ModelProviders) and its spec.
struct Model {
  llm::Provider* provider = nullptr;
  llm::ModelSpec spec;
};

// The model providers of one run and what they talk through; the one place that builds libcurl
// transports. libcurl, and OpenSSL with it, costs milliseconds and megabytes to start: it starts
// with the first provider that talks HTTP, which is always before any helper thread runs.
// Providers are not thread-safe, so every model gets its own (verifiers run beside the agent).
class ModelProviders {
public:
  // `config` (HTTP settings, the agent's model and server) and `io` (transports, retry waits)
  // must outlive the providers.
  ModelProviders(const Config& config, engine::Io& io) : m_config(config), m_io(io) {}

  // A new provider for `model` ("provider/model"), its key from the
  // usual variable. Its server is `base_url` when given, else the agent's when it is of the
  // agent's provider, else the provider's default.
  Result<Model> make(const std::string& model, const std::string& base_url = {});

  // Providers for the model of `config` (from settings()) made on demand, one per call, for
  // sub-queries on helper threads. A scripted model shares `agent`'s provider, one call at a
  // time, so that one script holds the whole run in order.
  rlm::ProviderFactory factory(llm::ProviderConfig config, const Model& agent);

  // The settings for `model` with its key: what make() and factory() build from.
  Result<llm::ProviderConfig> settings(const std::string& model, const std::string& base_url);

private:
  void start_http();

  const Config& m_config;
  engine::Io& m_io;
  std::optional<http::CurlGlobal> m_curl;
  std::vector<std::unique_ptr<http::Transport>> m_transports;
  std::vector<std::unique_ptr<llm::Provider>> m_providers;
  std::mutex m_shared; // serialises sub-queries on a shared scripted provider
};

} // namespace ralph::cli
