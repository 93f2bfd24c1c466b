#include "judge_call.h"

#include <fmt/format.h>

namespace ralph::docqa {

std::optional<std::string> call_judge(llm::Provider& provider, std::mutex& mutex,
                                      const JudgeCallOptions& options, std::string system,
                                      std::string user, std::string_view schema,
                                      const CancelToken& cancel, verify::Verdict& verdict) {
  verdict.model = options.model_label;
  const Message question{Role::user, std::move(user), {}, {}, {}, {}, false};
  llm::ChatRequest request;
  request.model = options.model;
  request.system = std::move(system);
  request.messages = std::span<const Message>(&question, 1);
  request.max_tokens = options.max_tokens;
  request.temperature = 0.0;
  request.stream = false;
  if (options.structured) {
    request.json_schema = std::string(schema);
    request.json_schema_name = "verdict";
    request.json_schema_strict = true;
  }
  // The deadline covers the whole call, retries and backoff included.
  const CancelToken deadline = cancel.child(std::chrono::steady_clock::now() + options.timeout);
  Result<llm::ChatResponse> response = [&] {
    const std::lock_guard lock(mutex);
    return provider.chat(request, nullptr, deadline);
  }();
  if (response) {
    verdict.usage = response->usage;
    return std::move(response->message.content);
  }
  verdict.result = verify::Outcome::error;
  if (deadline.deadline_passed() && !cancel.cancelled()) {
    verdict.category = std::string(verify::category::timeout);
    verdict.feedback = fmt::format("the judge timed out after {} s",
                                   static_cast<double>(options.timeout.count()) / 1000.0);
  } else if (response.error().kind == ErrorKind::cancelled) {
    verdict.category = "cancelled";
    verdict.feedback = "the judge was cancelled";
  } else {
    verdict.category = std::string(verify::category::provider_error);
    verdict.feedback = response.error().message;
  }
  return std::nullopt;
}

} // namespace ralph::docqa
