#include "ralph/docqa/task_verifiers.h"

#include "judge_call.h"

#include "ralph/core/text.h"
#include "ralph/verify/judge_prompt.h"
#include "ralph/verify/judge_verdict.h"

#include <fmt/format.h>

namespace ralph::docqa {
verify::Verdict TaskChecksVerifier::verify(const verify::Attempt& attempt,
                                           const CancelToken& /*cancel*/) {
  const TaskRecord record = m_ledger.get();
  std::vector<std::string> problems;
  const std::size_t output = utf8_length(trim(attempt.answer));
  if (output == 0) {
    problems.emplace_back("the output is empty");
  } else if (output < m_options.min_output_chars) {
    problems.push_back(fmt::format("the output has {} characters; at least {} are expected", output,
                                   m_options.min_output_chars));
  }
  const std::size_t memory = utf8_length(trim(record.memory_update));
  if (m_options.min_memory_chars > 0 && memory < m_options.min_memory_chars) {
    problems.push_back(
        memory == 0 ? std::string("the memory update is empty: record what you found")
                    : fmt::format("the memory update has {} characters; at least {} are expected",
                                  memory, m_options.min_memory_chars));
  }
  verify::Verdict verdict;
  verdict.verifier = name();
  if (problems.empty()) {
    verdict.result = verify::Outcome::pass;
    return verdict;
  }
  verdict.result = verify::Outcome::fail;
  verdict.category = std::string(verify::category::check_failed);
  for (std::size_t i = 0; i < problems.size(); ++i) {
    verdict.feedback += fmt::format("{}{}. {}", i == 0 ? "" : "\n", i + 1, problems[i]);
  }
  return verdict;
}

verify::Verdict TaskJudgeVerifier::verify(const verify::Attempt& attempt,
                                          const CancelToken& cancel) {
  const auto started = std::chrono::steady_clock::now();
  const TaskRecord record = m_ledger.get();
  // The task and the output are what is judged; the brief and the memory share what is left.
  const std::size_t fixed = attempt.goal.size() + attempt.answer.size() + 400;
  const std::size_t room = m_options.context_chars > fixed ? m_options.context_chars - fixed : 0;
  const std::string user = fmt::format(
      "Task (the user's request):\n{}\n\nBrief the reader extracted from the document:\n{}\n\n"
      "Memory of earlier attempts:\n{}\n\nOutput to judge:\n{}\n\nDoes the output substantively "
      "complete the task, as far as the brief and the memory allow?",
      attempt.goal, keep_head_and_tail(record.brief, room * 2 / 3),
      record.memory.empty() ? std::string("(none)") : keep_head_and_tail(record.memory, room / 3),
      attempt.answer);
  verify::Verdict verdict;
  verdict.verifier = name();
  JudgeCallOptions call;
  call.model = m_options.model;
  call.model_label = m_options.model_label;
  call.max_tokens = m_options.max_tokens;
  call.timeout = m_options.timeout;
  call.structured = m_options.structured;
  const auto text = call_judge(m_provider, m_mutex, call,
                               std::string(verify::judge_system_prompt(call.structured)), user,
                               verify::judge_verdict_schema(), cancel, verdict);
  if (text) {
    verify::JudgeReply reply = verify::parse_judge_reply(*text);
    verdict.result = reply.result;
    verdict.category = std::move(reply.category);
    verdict.feedback = std::move(reply.feedback);
    verdict.reasoning = std::move(reply.reasoning);
  }
  verdict.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - started)
                            .count();
  return verdict;
}

} // namespace ralph::docqa
