#pragma once

#include "ralph/core/clock.h"
#include "ralph/core/error.h"
#include "ralph/http/transport.h"
#include "ralph/llm/provider.h"
#include "ralph/llm/provider_config.h"

#include <memory>
#include <string_view>

namespace ralph::llm {

// Splits "PROVIDER/MODEL" at the first '/'. Providers: openai, openai-responses, anthropic,
// ollama, openai-compat, scripted (model = path of a JSON script). An unknown provider or an empty
// part is a usage error naming the accepted providers.
Result<ModelSpec> parse_model_spec(std::string_view spec);

// Builds the provider for `config`. openai, openai-responses and anthropic need `config.api_key`
// (a config error names OPENAI_API_KEY / ANTHROPIC_API_KEY; this layer never reads the
// environment); openai-compat needs `config.base_url` (usage error); scripted loads its script
// file. `transport` and `clock` must outlive the provider.
Result<std::unique_ptr<Provider>> make_provider(const ProviderConfig& config,
                                                http::Transport& transport, Clock& clock);

} // namespace ralph::llm
