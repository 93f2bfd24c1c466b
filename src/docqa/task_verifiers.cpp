#include "ralph/docqa/task_verifiers.h"

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
  } else if (output < m_settings.min_output_chars) {
    problems.push_back(fmt::format("the output has {} characters; at least {} are expected", output,
                                   m_settings.min_output_chars));
  }
  const std::size_t memory = utf8_length(trim(record.memory_update));
  // Without a memory file nothing keeps the update: it is not asked for.
  const std::size_t min_memory = m_settings.mem_file.empty() ? 0 : m_settings.min_memory_chars;
  if (min_memory > 0 && memory < min_memory) {
    problems.push_back(
        memory == 0 ? std::string("the memory update is empty: record what you found")
                    : fmt::format("the memory update has {} characters; at least {} are expected",
                                  memory, min_memory));
  }
  verify::Verdict verdict;
  verdict.verifier = name();
  if (problems.empty()) {
    verdict.result = verify::Outcome::pass;
    return verdict;
  }
  verdict.result = verify::Outcome::fail;
  verdict.category = verify::Category::check_failed;
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
  const std::size_t context_chars = m_client.settings().context_chars;
  const std::size_t room = context_chars > fixed ? context_chars - fixed : 0;
  const std::string user = fmt::format(
      "Task (the user's request):\n{}\n\nBrief the reader extracted from the document:\n{}\n\n"
      "Memory of earlier attempts:\n{}\n\nOutput to judge:\n{}\n\nDoes the output substantively "
      "complete the task, as far as the brief and the memory allow?",
      attempt.goal, keep_head_and_tail(record.brief, room * 2 / 3),
      record.memory.empty() ? std::string("(none)") : keep_head_and_tail(record.memory, room / 3),
      attempt.answer);
  verify::Verdict verdict;
  verdict.verifier = name();
  const auto response =
      m_client.ask(std::string(verify::judge_system_prompt(m_client.settings().structured)), user,
                   verify::judge_verdict_schema(), "verdict", cancel, verdict);
  if (response) {
    verify::JudgeReply reply = verify::parse_judge_reply(response->message.content);
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
