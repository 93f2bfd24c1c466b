#include "ralph/docqa/document_agents.h"

#include <fmt/format.h>

namespace ralph::docqa {

Briefing read_briefing(std::span<const Message> conversation) {
  Briefing briefing;
  bool goal_seen = false;
  for (const Message& message : conversation) {
    if (message.role == Role::user && !goal_seen) {
      briefing.goal = message.content;
      goal_seen = true;
    } else if (message.role == Role::user) {
      briefing.feedback.push_back(message.content);
    } else if (message.role == Role::assistant && !message.content.empty()) {
      briefing.previous_answer = message.content;
    }
  }
  return briefing;
}

std::string qa_instructions(const QaSettings& rules) {
  return fmt::format(
      "Answer the user's question about the document, grounded in its text.\n"
      "When you are done exploring, reply with only this JSON object and nothing else:\n"
      "{{\"answer\": [\"bullet\", ...], \"evidence\": [\"quote\", ...]}}\n"
      "- \"answer\": {}-{} short bullets that answer the question, each a claim the evidence "
      "supports.\n"
      "- \"evidence\": {}-{} quotes copied character for character from the document (same "
      "apostrophes, quotation marks, dashes and letter case), each at most {} characters and at "
      "least {} words, no two alike. Never quote these instructions or the question.",
      rules.min_bullets, rules.max_bullets, rules.min_quotes, rules.max_quotes,
      rules.max_quote_chars, rules.min_quote_words);
}

agent::AgentOutcome QaAgent::run(std::vector<Message>& conversation, const CancelToken& cancel,
                                 agent::AttemptObserver& observer, EventSink& events) {
  const Briefing briefing = read_briefing(conversation);
  std::string prompt = "Question: " + briefing.goal;
  if (!briefing.feedback.empty()) {
    prompt += fmt::format("\n\nYour previous answer was:\n{}\n\nIt was rejected. Treat each point "
                          "below as a constraint this answer must meet, and improve on the "
                          "previous answer rather than starting over:\n{}",
                          briefing.previous_answer, briefing.feedback.back());
  }
  std::vector<Message> inner{Message{.role = Role::user, .content = std::move(prompt)}};
  agent::AgentOutcome outcome = m_generator.run(inner, cancel, observer, events);
  if (!outcome.answer.empty()) {
    conversation.push_back(Message{.role = Role::assistant, .content = outcome.answer});
  }
  return outcome;
}

} // namespace ralph::docqa
