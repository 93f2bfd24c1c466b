#include "ralph/verify/judge_client.h"

#include <fmt/format.h>

#include <chrono>
#include <span>

namespace ralph::verify {
namespace {

std::string duration_text(std::chrono::milliseconds timeout) {
  if (timeout.count() < 1000) {
    return fmt::format("{} ms", timeout.count());
  }
  if (timeout.count() % 1000 == 0) {
    return fmt::format("{} s", timeout.count() / 1000);
  }
  return fmt::format("{:.1f} s", static_cast<double>(timeout.count()) / 1000.0);
}

} // namespace

std::optional<llm::ChatResponse> JudgeClient::ask(std::string system, std::string user,
                                                  std::string_view schema,
                                                  std::string_view schema_name,
                                                  const CancelToken& cancel, Verdict& verdict) {
  verdict.model = m_model.label();
  const Message question{.role = Role::user, .content = std::move(user)};
  llm::ChatRequest request;
  request.model = m_model.model;
  request.system = std::move(system);
  request.messages = std::span<const Message>(&question, 1);
  request.max_tokens = m_settings.max_tokens;
  request.temperature = 0.0;
  request.stream = false; // nothing watches a judge's tokens arrive; one body is cheaper
  if (m_settings.structured) {
    request.json_schema = std::string(schema);
    request.json_schema_name = std::string(schema_name);
    request.json_schema_strict = true;
  }
  const CancelToken deadline = cancel.child(std::chrono::steady_clock::now() + m_settings.timeout);
  Result<llm::ChatResponse> response = [&] {
    const std::lock_guard lock(m_mutex);
    return m_provider.chat(request, nullptr, deadline);
  }();
  if (response) {
    verdict.usage = response->usage;
    return std::move(*response);
  }
  const Error& error = response.error();
  verdict.result = Outcome::error;
  if (deadline.deadline_passed() && !cancel.cancelled()) {
    verdict.category = Category::timeout;
    verdict.feedback =
        fmt::format("the judge timed out after {}", duration_text(m_settings.timeout));
  } else if (error.kind == ErrorKind::cancelled) {
    verdict.category = Category::cancelled;
    verdict.feedback = "the judge was cancelled";
  } else {
    verdict.category =
        error.kind == ErrorKind::timeout ? Category::timeout : Category::provider_error;
    verdict.feedback = error.message;
  }
  return std::nullopt;
}

} // namespace ralph::verify
