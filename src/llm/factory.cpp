#include "ralph/llm/factory.h"

#include "ralph/llm/anthropic_provider.h"
#include "ralph/llm/openai_provider.h"
#include "ralph/llm/scripted_provider.h"

#include <fmt/format.h>

#include <array>

namespace ralph::llm {
namespace {

constexpr std::array<std::string_view, 5> k_providers = {"openai", "anthropic", "ollama",
                                                         "openai-compat", "scripted"};
constexpr std::string_view k_accepted = "openai, anthropic, ollama, openai-compat, scripted";

Error missing_key(const ModelSpec& spec, std::string_view variable) {
  Error error;
  error.kind = ErrorKind::config;
  error.message =
      fmt::format("{}/{} needs an API key: set {}", spec.provider, spec.model, variable);
  return error;
}

} // namespace

Result<ModelSpec> parse_model_spec(std::string_view spec) {
  const std::size_t slash = spec.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == spec.size()) {
    return fail(ErrorKind::usage,
                fmt::format("model '{}' is not PROVIDER/MODEL (e.g. openai/gpt-4.1); providers: {}",
                            spec, k_accepted));
  }
  ModelSpec out{std::string(spec.substr(0, slash)), std::string(spec.substr(slash + 1))};
  for (std::string_view provider : k_providers) {
    if (out.provider == provider) {
      return out;
    }
  }
  return fail(ErrorKind::usage, fmt::format("unknown provider '{}' in model '{}'; use one of: {}",
                                            out.provider, spec, k_accepted));
}

Result<std::unique_ptr<Provider>> make_provider(const ProviderConfig& config,
                                                http::Transport& transport, Clock& clock) {
  const ModelSpec& spec = config.spec;
  if (spec.provider == "openai") {
    if (config.api_key.empty()) {
      return fail(missing_key(spec, "OPENAI_API_KEY"));
    }
    return std::make_unique<OpenAiProvider>(OpenAiDialect::openai(), config, transport, clock);
  }
  if (spec.provider == "anthropic") {
    if (config.api_key.empty()) {
      return fail(missing_key(spec, "ANTHROPIC_API_KEY"));
    }
    return std::make_unique<AnthropicProvider>(config, transport, clock);
  }
  if (spec.provider == "ollama") {
    return std::make_unique<OpenAiProvider>(OpenAiDialect::ollama(), config, transport, clock);
  }
  if (spec.provider == "openai-compat") {
    if (config.base_url.empty()) {
      return fail(ErrorKind::usage,
                  fmt::format("openai-compat/{} needs a base URL: the server's OpenAI-compatible "
                              "root, e.g. --base-url http://localhost:8080/v1",
                              spec.model));
    }
    return std::make_unique<OpenAiProvider>(OpenAiDialect::compat(), config, transport, clock);
  }
  if (spec.provider == "scripted") {
    return ScriptedProvider::from_file(spec.model);
  }
  return fail(ErrorKind::usage,
              fmt::format("unknown provider '{}'; use one of: {}", spec.provider, k_accepted));
}

} // namespace ralph::llm
