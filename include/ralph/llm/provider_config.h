#pragma once

#include "ralph/core/enum_names.h"
#include "ralph/core/settings.h"
#include "ralph/http/retry.h"

#include <chrono>
#include <string>

namespace ralph::llm {

// Which API a model is served through.
enum class ProviderKind { openai, anthropic, ollama, openai_compat, scripted, openai_responses };
inline constexpr EnumName<ProviderKind> k_provider_names[] = {
    {ProviderKind::openai, "openai"},     {ProviderKind::anthropic, "anthropic"},
    {ProviderKind::ollama, "ollama"},     {ProviderKind::openai_compat, "openai-compat"},
    {ProviderKind::scripted, "scripted"}, {ProviderKind::openai_responses, "openai-responses"}};
inline const char* to_string(ProviderKind kind) {
  return name_of(k_provider_names, kind);
}

// "openai/gpt-4.1" -> {openai, "gpt-4.1"}.
struct ModelSpec {
  ProviderKind provider = ProviderKind::openai;
  std::string model;

  // "provider/model", as the user writes it (and as prices are keyed).
  std::string label() const { return std::string(to_string(provider)) + "/" + model; }
};

// Who trained the model, from its name ("claude-…" is Anthropic's wherever it is served, "gpt-…"
// OpenAI's, "gemini-…" Google's, …), else from the provider (anthropic, openai); empty when
// neither tells. A judge of another family catches mistakes the agent's family shares.
std::string_view model_family(const ModelSpec& spec);

// What an HTTP provider needs besides the transport and the clock. Retries and timeouts default
// to the CLI's (HttpSettings, the http.* keys). Nothing here comes from the environment: the key,
// and OPENAI_BASE_URL for openai and openai-responses, are the caller's to give, as
// session::ModelProviders::settings gives them from its Runtime's environment.
struct ProviderConfig {
  ModelSpec spec;
  // Empty: the provider's default (https://api.openai.com/v1, https://api.anthropic.com,
  // http://localhost:11434/v1), not OPENAI_BASE_URL.
  std::string base_url;
  std::string
      api_key; // never logged, redacted from every error; empty is allowed for local servers
  http::RetryPolicy retry{.max_attempts = HttpSettings{}.max_retries + 1};
  std::chrono::milliseconds connect_timeout = HttpSettings{}.connect_timeout;
  std::chrono::milliseconds idle_timeout = HttpSettings{}.idle_timeout;
};

} // namespace ralph::llm
