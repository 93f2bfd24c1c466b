#pragma once

#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/engine/io.h"
#include "ralph/http/transport.h"
#include "ralph/llm/provider.h"
#include "ralph/llm/provider_config.h"
#include "ralph/rlm/sub_query.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ralph::session {

class Runtime;

// A model a run uses: the provider serving it (owned by ModelProviders) and its spec.
struct Model {
  llm::Provider* provider = nullptr;
  llm::ModelSpec spec;
};

// The model providers of one session and what they talk through; the one place that builds
// libcurl transports (libcurl starts, through the runtime, with the first provider that talks
// HTTP). Providers are not thread-safe, so every model gets its own (verifiers run beside the
// agent).
class ModelProviders {
public:
  // `config` (HTTP settings, the agent's model and server), `io` (transports, retry waits) and
  // `runtime` (keys, libcurl) must outlive the providers.
  ModelProviders(const Config& config, engine::Io& io, Runtime& runtime)
      : m_config(config), m_io(io), m_runtime(runtime) {}

  // A new provider for `model` ("provider/model"), its key from the usual variable of the
  // runtime's environment. Its server is `base_url` when given, else the agent's when it is of
  // the agent's provider, else the provider's default.
  Result<Model> make(const std::string& model, const std::string& base_url = {});

  // Providers for the model of `config` (from settings()) made on demand, one per call, for
  // sub-queries on helper threads. A scripted model shares `agent`'s provider, one call at a
  // time, so that one script holds the whole run in order.
  rlm::ProviderFactory factory(llm::ProviderConfig config, const Model& agent);

  // The settings for `model` with its key: what make() and factory() build from.
  Result<llm::ProviderConfig> settings(const std::string& model, const std::string& base_url);

private:
  const Config& m_config;
  engine::Io& m_io;
  Runtime& m_runtime;
  std::vector<std::unique_ptr<http::Transport>> m_transports;
  std::vector<std::unique_ptr<llm::Provider>> m_providers;
  std::mutex m_shared; // serialises sub-queries on a shared scripted provider
};

} // namespace ralph::session
