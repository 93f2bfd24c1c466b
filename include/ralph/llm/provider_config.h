#pragma once

#include "ralph/core/enum_names.h"
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

// What an HTTP provider needs besides the transport and the clock.
struct ProviderConfig {
  ModelSpec spec;
  std::string
      base_url; // empty: the provider's default (OpenAI, Anthropic, http://localhost:11434/v1)
  std::string
      api_key; // never logged, redacted from every error; empty is allowed for local servers
  http::RetryPolicy retry;
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds idle_timeout{120'000};
};

} // namespace ralph::llm
