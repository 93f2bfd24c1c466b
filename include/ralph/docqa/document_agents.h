#pragma once

#include "ralph/agent/agent.h"
#include "ralph/docqa/qa_checks.h"
#include "ralph/llm/provider.h"
#include "ralph/llm/provider_config.h"

#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace ralph::docqa {

// What an attempt on a document starts from, read from the outer loop's conversation: the goal
// (the first user message), the last answer, and every piece of feedback since (the later user
// messages), oldest first.
struct Briefing {
  std::string goal;
  std::string previous_answer;
  std::vector<std::string> feedback;
};
Briefing read_briefing(std::span<const Message> conversation);

// The generator's instructions for a grounded answer under `rules`: the JSON form, the counts and
// what makes a quote count. Part of ralph's own prompts, so quotes copied from it are rejected.
std::string qa_instructions(const QaSettings& rules);

// One QA attempt: the generator (an RLM agent over the document) starts from the question, the
// previous answer and the last failures as constraints, in a conversation of its own; only its
// final answer joins the outer conversation, so attempts stay small however long each explored.
class QaAgent final : public agent::Agent {
public:
  explicit QaAgent(agent::Agent& generator) : m_generator(generator) {}
  agent::AgentOutcome run(std::vector<Message>& conversation, const CancelToken& cancel,
                          agent::AttemptObserver& observer, EventSink& events) override;

private:
  agent::Agent& m_generator;
};

// What the last task attempt produced, shared by the task agent and its verifiers.
struct TaskRecord {
  std::string brief;         // the reader's findings
  std::string output;        // the reasoner's answer
  std::string memory_update; // what it added to the memory file
  std::string memory;        // the memory file the reader and reasoner saw
};

class TaskLedger {
public:
  void set(TaskRecord record) {
    const std::lock_guard lock(m_mutex);
    m_record = std::move(record);
  }
  TaskRecord get() const {
    const std::lock_guard lock(m_mutex);
    return m_record;
  }

private:
  mutable std::mutex m_mutex;
  TaskRecord m_record;
};

struct TaskOptions {
  llm::ModelSpec reasoner_model; // the model the reasoner's provider serves
  int max_tokens = 4096;
  std::filesystem::path memory_file; // empty: no memory file
  std::size_t memory_chars = 1500;
  int feedback_kept = 2; // failed attempts whose feedback the reasoner sees; older are counted
};

// Seed 003's task mode as one attempt: the reader (an RLM agent over the document, guided by the
// memory file and the last review's issues) writes a brief; the reasoner turns it into the output
// and a memory update, which is appended to the memory file. The output is the answer. Both
// providers and the ledger must outlive the agent.
class TaskAgent final : public agent::Agent {
public:
  TaskAgent(agent::Agent& reader, llm::Provider& reasoner, TaskLedger& ledger, TaskOptions options)
      : m_reader(reader), m_reasoner(reasoner), m_ledger(ledger), m_options(std::move(options)) {}
  agent::AgentOutcome run(std::vector<Message>& conversation, const CancelToken& cancel,
                          agent::AttemptObserver& observer, EventSink& events) override;

private:
  agent::Agent& m_reader;
  llm::Provider& m_reasoner;
  TaskLedger& m_ledger;
  TaskOptions m_options;
};

// The reader's instructions in task mode.
std::string task_reader_instructions();

} // namespace ralph::docqa
