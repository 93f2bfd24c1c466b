#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/settings.h"
#include "ralph/llm/provider.h"
#include "ralph/llm/provider_config.h"
#include "ralph/verify/verdict.h"

#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace ralph::verify {

// How every judge talks to its model: one tool-less, non-streaming call at temperature 0 (the
// same answer judged twice should get the same verdict), at most settings.max_tokens long,
// within settings.timeout with retries and backoff included, asking for `schema` as structured
// output when settings.structured. Calls on one client are serialised: a Provider is not
// thread-safe, and verifiers run beside each other. The provider must outlive the client.
class JudgeClient {
public:
  JudgeClient(llm::Provider& provider, llm::ModelSpec model, JudgeSettings settings)
      : m_provider(provider), m_model(std::move(model)), m_settings(std::move(settings)) {}

  // The model's reply, with `verdict`'s model and usage filled in; or nullopt with `verdict`
  // made an `error`: `timeout` past the deadline, `cancelled`, or `provider_error` with the
  // provider's message.
  std::optional<llm::ChatResponse> ask(std::string system, std::string user,
                                       std::string_view schema, std::string_view schema_name,
                                       const CancelToken& cancel, Verdict& verdict);

  const JudgeSettings& settings() const { return m_settings; }

private:
  llm::Provider& m_provider;
  llm::ModelSpec m_model;
  JudgeSettings m_settings;
  std::mutex m_mutex;
};

} // namespace ralph::verify
