#include "ralph/verify/judge_verifier.h"

#include "ralph/verify/judge_context.h"
#include "ralph/verify/judge_prompt.h"
#include "ralph/verify/judge_rules.h"
#include "ralph/verify/judge_verdict.h"

#include <fmt/format.h>

#include <chrono>
#include <utility>
#include <vector>

namespace ralph::verify {

JudgeVerifier::JudgeVerifier(llm::Provider& provider, llm::ModelSpec model, JudgeSettings settings,
                             std::optional<std::vector<JudgeRulesFile>> rules)
    : m_client(provider, std::move(model), std::move(settings)), m_rules(std::move(rules)) {}

Verdict JudgeVerifier::verify(const Attempt& attempt, const CancelToken& cancel) {
  const auto started = std::chrono::steady_clock::now();
  const JudgeSettings& settings = m_client.settings();
  Verdict verdict;
  verdict.verifier = name();
  const auto timed = [&] {
    verdict.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - started)
                              .count();
    return verdict;
  };
  const auto finish = [&](Outcome result, Category category, std::string feedback) {
    verdict.result = result;
    verdict.category = std::move(category);
    verdict.feedback = std::move(feedback);
    return timed();
  };

  const std::vector<JudgeRulesFile> rules =
      m_rules ? *m_rules
              : read_judge_rules(attempt.workspace,
                                 judge_rules_file_names(settings.rules_files, attempt.heartbeat),
                                 settings.rules_chars);
  JudgeContextOptions budget;
  budget.context_chars = settings.context_chars;
  budget.rules_chars = settings.rules_chars;
  budget.structured = settings.structured;
  auto context = assemble_judge_context(attempt, rules, budget);
  if (!context) {
    return finish(Outcome::error, Category::context_budget, context.error().message);
  }
  auto response = m_client.ask(std::move(context->system), std::move(context->user),
                               judge_verdict_schema(), "judge_verdict", cancel, verdict);
  if (!response) {
    return timed(); // ask() wrote the error into the verdict
  }
  JudgeReply reply = parse_judge_reply(response->message.content);
  verdict.reasoning = std::move(reply.reasoning);
  if (reply.result == Outcome::error && response->stop_reason == llm::StopReason::max_tokens) {
    reply.feedback +=
        fmt::format(" (the judge stopped at its output cap of {} tokens)", settings.max_tokens);
  } else if (reply.result == Outcome::error &&
             (response->stop_reason == llm::StopReason::refusal ||
              response->stop_reason == llm::StopReason::content_filter)) {
    reply.feedback +=
        fmt::format(" (the judge's model stopped: {})", llm::to_string(response->stop_reason));
  }
  return finish(reply.result, reply.category, std::move(reply.feedback));
}

} // namespace ralph::verify
