#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/llm/provider.h"
#include "ralph/rlm/sandbox.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace ralph::rlm {

// Makes a provider for one sub-query. Called from several threads at once: it must be
// thread-safe, and each provider it returns is used by one thread only.
using ProviderFactory = std::function<Result<std::unique_ptr<llm::Provider>>()>;

struct SubQueryOptions {
  std::string model; // as the provider expects it, without the "provider/" prefix
  int max_tokens = 1024;
  // A longer context keeps its head and tail with a line saying how much was left out (cut on
  // UTF-8 boundaries; invalid UTF-8 from the document becomes U+FFFD).
  std::size_t max_context_bytes = 20000;
  std::optional<double> temperature = 0.0; // nullopt: the server's default
  // Stops sub-queries in flight and refuses new ones, e.g. the run's token.
  CancelToken cancel;
};

// The sub-query function of a real model: each call makes its own provider (providers are not
// thread-safe; not sharing them is what makes this function thread-safe), sends one
// non-streaming request without tools (a short system prompt: answer from the context only, say
// so when it does not hold the answer), and returns the text and usage. Provider errors, an
// empty answer and cancellation come back as errors.
SubQueryFn provider_sub_query(ProviderFactory make_provider, SubQueryOptions options);

} // namespace ralph::rlm
