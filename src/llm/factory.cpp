#include "ralph/llm/factory.h"

#include "ralph/llm/anthropic_provider.h"
#include "ralph/llm/openai_provider.h"
#include "ralph/llm/responses_provider.h"
#include "ralph/llm/scripted_provider.h"

#include <fmt/format.h>

namespace ralph::llm {
namespace {

constexpr std::string_view k_accepted =
    "openai, openai-responses, anthropic, ollama, openai-compat, scripted";

Error missing_key(const ModelSpec& spec, std::string_view variable) {
  return Error{.kind = ErrorKind::config,
               .message = fmt::format("{} needs an API key: set {}", spec.label(), variable)};
}

} // namespace

Result<ModelSpec> parse_model_spec(std::string_view spec) {
  const std::size_t slash = spec.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == spec.size()) {
    return fail(ErrorKind::usage,
                fmt::format("model '{}' is not PROVIDER/MODEL (e.g. openai/gpt-4.1); providers: {}",
                            spec, k_accepted));
  }
  const std::string_view provider = spec.substr(0, slash);
  const auto kind = value_of(k_provider_names, provider);
  if (!kind) {
    return fail(ErrorKind::usage, fmt::format("unknown provider '{}' in model '{}'; use one of: {}",
                                              provider, spec, k_accepted));
  }
  return ModelSpec{.provider = *kind, .model = std::string(spec.substr(slash + 1))};
}

Result<std::unique_ptr<Provider>> make_provider(const ProviderConfig& config,
                                                http::Transport& transport, Clock& clock) {
  const ModelSpec& spec = config.spec;
  switch (spec.provider) {
  case ProviderKind::openai:
    if (config.api_key.empty()) {
      return fail(missing_key(spec, "OPENAI_API_KEY"));
    }
    return std::make_unique<OpenAiProvider>(OpenAiDialect::openai(), config, transport, clock);
  case ProviderKind::openai_responses:
    if (config.api_key.empty()) {
      return fail(missing_key(spec, "OPENAI_API_KEY"));
    }
    return std::make_unique<ResponsesProvider>(config, transport, clock);
  case ProviderKind::anthropic:
    if (config.api_key.empty()) {
      return fail(missing_key(spec, "ANTHROPIC_API_KEY"));
    }
    return std::make_unique<AnthropicProvider>(config, transport, clock);
  case ProviderKind::ollama:
    return std::make_unique<OpenAiProvider>(OpenAiDialect::ollama(), config, transport, clock);
  case ProviderKind::openai_compat:
    if (config.base_url.empty()) {
      return fail(ErrorKind::usage,
                  fmt::format("openai-compat/{} needs a base URL: the server's OpenAI-compatible "
                              "root, e.g. --base-url http://localhost:8080/v1",
                              spec.model));
    }
    return std::make_unique<OpenAiProvider>(OpenAiDialect::compat(), config, transport, clock);
  case ProviderKind::scripted:
    return ScriptedProvider::from_file(spec.model);
  }
  return fail(ErrorKind::internal, "unknown provider kind");
}

} // namespace ralph::llm
