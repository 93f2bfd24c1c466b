#include "ralph/verify/judge_verifier.h"

#include "ralph/verify/judge_context.h"
#include "ralph/verify/judge_prompt.h"
#include "ralph/verify/judge_rules.h"
#include "ralph/verify/judge_verdict.h"

#include <fmt/format.h>

#include <utility>

namespace ralph::verify {
namespace {

using Steady = std::chrono::steady_clock;

std::string seconds_text(std::chrono::milliseconds timeout) {
  if (timeout.count() < 1000) {
    return fmt::format("{} ms", timeout.count());
  }
  if (timeout.count() % 1000 == 0) {
    return fmt::format("{} s", timeout.count() / 1000);
  }
  return fmt::format("{:.1f} s", static_cast<double>(timeout.count()) / 1000.0);
}

} // namespace

JudgeVerifier::JudgeVerifier(llm::Provider& provider, JudgeOptions options)
    : m_provider(provider), m_options(std::move(options)) {}

Verdict JudgeVerifier::verify(const Attempt& attempt, const CancelToken& cancel) {
  const Steady::time_point started = Steady::now();
  Verdict verdict;
  verdict.verifier = name();
  verdict.model = m_options.model_label;
  const auto finish = [&](Outcome result, std::string_view category, std::string feedback) {
    verdict.result = result;
    verdict.category = std::string(category);
    verdict.feedback = std::move(feedback);
    verdict.duration_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - started).count();
    return verdict;
  };

  const std::vector<std::string> names =
      judge_rules_file_names(m_options.rules_files, attempt.heartbeat);
  const std::vector<JudgeRulesFile> rules =
      read_judge_rules(attempt.workspace, names, m_options.rules_chars);
  JudgeContextOptions budget;
  budget.context_chars = m_options.context_chars;
  budget.answer_chars = m_options.answer_chars;
  budget.rules_chars = m_options.rules_chars;
  budget.feedback_chars = m_options.feedback_chars;
  budget.history_turns = m_options.history_turns;
  budget.structured = m_options.structured;
  auto context = assemble_judge_context(attempt, rules, budget);
  if (!context) {
    return finish(Outcome::error, k_context_budget, context.error().message);
  }

  const Message question{Role::user, std::move(context->user), {}, {}, {}, {}, false};
  llm::ChatRequest request;
  request.model = m_options.model;
  request.system = std::move(context->system);
  request.messages = std::span<const Message>(&question, 1);
  request.max_tokens = m_options.max_tokens;
  request.temperature = m_options.temperature;
  request.stream = false; // nothing watches the judge's tokens arrive; one body is cheaper
  if (m_options.structured) {
    request.json_schema = std::string(judge_verdict_schema());
    request.json_schema_name = "judge_verdict";
    request.json_schema_strict = true;
  }

  // The deadline covers the whole call, retries and backoff included.
  const CancelToken deadline = cancel.child(Steady::now() + m_options.timeout);
  Result<llm::ChatResponse> response = [&] {
    const std::lock_guard lock(m_mutex);
    return m_provider.chat(request, nullptr, deadline);
  }();
  if (!response) {
    const Error& error = response.error();
    if (deadline.deadline_passed() && !cancel.cancelled()) {
      return finish(Outcome::error, category::timeout,
                    fmt::format("judge timed out after {}", seconds_text(m_options.timeout)));
    }
    if (error.kind == ErrorKind::cancelled) {
      return finish(Outcome::error, "cancelled", "judge cancelled");
    }
    if (error.kind == ErrorKind::timeout) {
      return finish(Outcome::error, category::timeout, error.message);
    }
    return finish(Outcome::error, category::provider_error, error.message);
  }

  verdict.usage = response->usage;
  JudgeReply reply = parse_judge_reply(response->message.content);
  verdict.reasoning = std::move(reply.reasoning);
  if (reply.result == Outcome::error && response->stop_reason == llm::StopReason::max_tokens) {
    reply.feedback +=
        fmt::format(" (the judge stopped at its output cap of {} tokens)", m_options.max_tokens);
  } else if (reply.result == Outcome::error &&
             (response->stop_reason == llm::StopReason::refusal ||
              response->stop_reason == llm::StopReason::content_filter)) {
    reply.feedback +=
        fmt::format(" (the judge's model stopped: {})", llm::to_string(response->stop_reason));
  }
  return finish(reply.result, reply.category, std::move(reply.feedback));
}

} // namespace ralph::verify
