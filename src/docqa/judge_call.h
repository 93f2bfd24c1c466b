#pragma once

#include "ralph/core/cancel.h"
#include "ralph/llm/provider.h"
#include "ralph/verify/verdict.h"

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

namespace ralph::docqa {

struct JudgeCallOptions {
  std::string model;       // as the provider expects it
  std::string model_label; // "provider/model", for cost
  int max_tokens = 512;
  std::chrono::milliseconds timeout{30'000};
  bool structured = true;
};

// One tool-less, non-streaming, temperature-0 call of a judge model with `schema` as its
// structured output. Fills the verdict's usage, model and (on failure) an `error` outcome:
// "timeout" past the deadline (retries included), "cancelled", or "provider_error". Returns the
// model's text when the call succeeded. The mutex serialises calls on the shared provider.
std::optional<std::string> call_judge(llm::Provider& provider, std::mutex& mutex,
                                      const JudgeCallOptions& options, std::string system,
                                      std::string user, std::string_view schema,
                                      const CancelToken& cancel, verify::Verdict& verdict);

} // namespace ralph::docqa
