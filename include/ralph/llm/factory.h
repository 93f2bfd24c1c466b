#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "ralph/core/clock.h"
#include "ralph/core/error.h"
#include "ralph/http/retry.h"
#include "ralph/http/transport.h"
#include "ralph/llm/provider.h"

namespace ralph::llm {

// "openai/gpt-4.1" -> {"openai", "gpt-4.1"}. Providers: openai, anthropic, ollama, openai-compat,
// scripted (model = path of a JSON script, or "default" for the embedded demo script).
struct ModelSpec {
  std::string provider;
  std::string model;
};

// Splits at the first '/'; an unknown provider or an empty part is a usage error naming the
// accepted providers.
Result<ModelSpec> parse_model_spec(std::string_view spec);

struct ProviderConfig {
  ModelSpec spec;
  std::string base_url; // empty: the provider's default (OpenAI, Anthropic, http://localhost:11434/v1)
  std::string api_key;  // never logged; empty is allowed for local servers
  http::RetryPolicy retry;
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds idle_timeout{120'000};
};

// Builds the provider for `config`. `transport` and `clock` must outlive the provider.
Result<std::unique_ptr<Provider>> make_provider(const ProviderConfig& config,
                                                http::Transport& transport, Clock& clock);

} // namespace ralph::llm
