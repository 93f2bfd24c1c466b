#include "json_object.h"

#include "ralph/agent/agent_steps.h"
#include "ralph/core/json.h"
#include "ralph/core/time.h"
#include "ralph/docqa/document_agents.h"
#include "ralph/store/memory_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <sstream>

namespace ralph::docqa {
namespace {

constexpr std::string_view k_reasoner_system =
    R"(You complete a task about a document from a brief another reader wrote after reading it.
Use only what the brief and the memory say; where they are not enough, say what is missing
instead of inventing. Reply with only this JSON object:
{"output": "the complete result of the task", "memory_update": "new findings worth keeping for
later attempts: facts from the brief, open questions, what the last review criticised"})";

constexpr std::string_view k_reasoner_schema =
    R"({"type":"object","properties":{"output":{"type":"string"},"memory_update":{"type":"string"}},
"required":["output","memory_update"],"additionalProperties":false})";

std::string read_memory(const std::filesystem::path& path) {
  if (path.empty()) {
    return {};
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The feedback of the last `kept` failed attempts, and a count of the older ones left out.
std::string recent_feedback(const std::vector<std::string>& feedback, int kept) {
  if (feedback.empty()) {
    return {};
  }
  const std::size_t keep = std::min(feedback.size(), static_cast<std::size_t>(kept));
  const std::size_t omitted = feedback.size() - keep;
  std::string text = "Reviews of earlier attempts (fix what they point out):\n";
  if (omitted > 0) {
    text += fmt::format("[{} older failed attempt(s) omitted]\n", omitted);
  }
  for (std::size_t i = feedback.size() - keep; i < feedback.size(); ++i) {
    text += fmt::format("\n--- attempt {} ---\n{}\n", i + 1, feedback[i]);
  }
  return text;
}

} // namespace

std::string task_reader_instructions() {
  return "You are the reader of a two-step task. Explore the document and write a compact brief "
         "(at most about 600 words) with everything the task needs: the relevant facts, each with "
         "where it occurs in the document (line or byte position), and short verbatim quotes for "
         "the key points. Use the memory of earlier attempts to avoid repeating work, and look "
         "specifically for what resolves the issues an earlier review raised. When done, reply "
         "with the brief only.";
}

agent::AgentOutcome TaskAgent::run(std::vector<Message>& conversation, const CancelToken& cancel,
                                   agent::AttemptObserver& observer, EventSink& events) {
  const Briefing briefing = read_briefing(conversation);
  const std::string memory = read_memory(m_options.memory_file);
  const std::string reviews = recent_feedback(briefing.feedback, m_options.feedback_kept);

  std::string reader_prompt = "Task: " + briefing.goal;
  if (!memory.empty()) {
    reader_prompt += "\n\nMemory from earlier attempts:\n" + memory;
  }
  if (!briefing.feedback.empty()) {
    reader_prompt += "\n\nIssues the last review found:\n" + briefing.feedback.back();
  }
  std::vector<Message> reading{Message{.role = Role::user, .content = std::move(reader_prompt)}};
  agent::AgentOutcome outcome = m_reader.run(reading, cancel, observer, events);
  if (outcome.stop == agent::AgentStop::cancelled || outcome.stop == agent::AgentStop::failed ||
      outcome.answer.empty()) {
    if (outcome.stop == agent::AgentStop::answered) {
      outcome.stop = agent::AgentStop::failed;
      outcome.error = Error{.kind = ErrorKind::provider, .message = "the reader wrote no brief"};
    }
    return outcome;
  }
  TaskRecord record;
  record.brief = outcome.answer;
  record.memory = memory;

  std::string user =
      fmt::format("Task: {}\n\nBrief from the reader:\n{}\n", briefing.goal, record.brief);
  if (!memory.empty()) {
    user += "\nMemory from earlier attempts:\n" + memory + "\n";
  }
  if (!reviews.empty()) {
    user += "\n" + reviews;
  }
  const Message question{.role = Role::user, .content = std::move(user)};
  llm::ChatRequest request;
  request.model = m_options.reasoner_model.model;
  request.system = std::string(k_reasoner_system);
  request.messages = std::span<const Message>(&question, 1);
  request.max_tokens = m_options.max_tokens;
  request.stream = false;
  request.json_schema = std::string(k_reasoner_schema);
  request.json_schema_name = "task_result";
  request.json_schema_strict = true;

  const int step = outcome.steps + 1;
  events.on_event(agent::model_started_event(step));
  auto response = m_reasoner.chat(request, nullptr, cancel);
  outcome.steps = step;
  if (!response) {
    outcome.stop = response.error().kind == ErrorKind::cancelled ? agent::AgentStop::cancelled
                                                                 : agent::AgentStop::failed;
    outcome.error = response.error();
    events.on_event(agent::error_event(step, response.error()));
    return outcome;
  }
  observer.model_call_finished(
      agent::model_call(step, m_options.reasoner_model.label(), *response));
  outcome.usage += response->usage;

  auto parsed = parse_json(json_object_text(response->message.content), "reasoner reply");
  if (parsed && parsed->is_object() && parsed->contains("output") &&
      (*parsed)["output"].is_string()) {
    record.output = (*parsed)["output"].get<std::string>();
    if (parsed->contains("memory_update") && (*parsed)["memory_update"].is_string()) {
      record.memory_update = (*parsed)["memory_update"].get<std::string>();
    }
  } else {
    // A reasoner that ignored the form still produced an output; the checks will see no update.
    record.output = response->message.content;
  }

  if (!m_options.memory_file.empty() && !record.memory_update.empty()) {
    const int iteration = static_cast<int>(briefing.feedback.size()) + 1;
    auto written = store::append_memory_file(m_options.memory_file, iteration,
                                             iso8601_utc(std::chrono::system_clock::now()),
                                             record.memory_update, m_options.memory_chars);
    if (!written) {
      events.on_event(agent::warning_event(step, "the memory file was not updated: " +
                                                     written.error().message));
    }
  }
  outcome.answer = record.output;
  outcome.stop = agent::AgentStop::answered;
  outcome.error.reset();
  conversation.push_back(Message{.role = Role::assistant, .content = record.output});
  m_ledger.set(std::move(record));

  events.on_event(agent::agent_finished_event(outcome));
  return outcome;
}

} // namespace ralph::docqa
