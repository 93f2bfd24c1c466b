#include "ralph/rlm/rlm_agent.h"

#include "rlm/rlm_prompt.h"
#include "rlm/sub_query_budget.h"
#include "rlm/trajectory.h"

#include "ralph/agent/agent_steps.h"
#include "ralph/core/json.h"
#include "ralph/core/text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <utility>

namespace ralph::rlm {
namespace {

using agent::AgentOutcome;
using agent::AgentStop;
using agent::interrupted;

std::string steps_ran_out(int steps) {
  return fmt::format("the step budget of {} model call{} ran out", steps, steps == 1 ? "" : "s");
}

Usage minus(Usage a, const Usage& b) {
  a.input_tokens -= b.input_tokens;
  a.output_tokens -= b.output_tokens;
  a.cache_read_tokens -= b.cache_read_tokens;
  a.cache_write_tokens -= b.cache_write_tokens;
  return a;
}

// The code of a call, or why there is none.
Result<std::string> code_argument(const ToolCall& call) {
  auto arguments = parse_json(call.arguments, "tool arguments");
  if (!arguments) {
    return fail(ErrorKind::tool, arguments.error().message);
  }
  const auto code = arguments->is_object() ? arguments->find("code") : arguments->end();
  if (!arguments->is_object() || code == arguments->end() || !code->is_string()) {
    return fail(ErrorKind::tool, "missing the string argument `code`");
  }
  return code->get<std::string>();
}

// What the model sees of one execution. The sandbox already notes in the output what its limits
// did (time limit, memory, reset), so only the bytes need care: code slices the document
// anywhere, and a JSON request cannot carry broken UTF-8.
std::string shown_output(ExecResult& result) {
  std::string text =
      is_valid_utf8(result.output) ? std::move(result.output) : to_valid_utf8(result.output);
  return trim(text).empty() ? "(no output)" : text;
}

// One attempt: the sandbox, the budget and the record live as long as it does.
class Attempt {
public:
  Attempt(llm::Provider& provider, const RlmOptions& options, std::vector<Message>& conversation,
          const CancelToken& cancel, agent::AttemptObserver& observer, EventSink& events,
          SubQueryBudget& budget, Sandbox& sandbox)
      : m_provider(provider), m_options(options), m_model(options.model.label()),
        m_sub_model(options.sub_model.empty() ? m_model : options.sub_model),
        m_conversation(conversation), m_cancel(cancel), m_observer(observer), m_events(events),
        m_budget(budget), m_sandbox(sandbox), m_language(sandbox.language()) {}

  AgentOutcome run();
  // Counts sub-query usage not counted yet (a batch may finish after its execution returned).
  void settle_sub_queries();
  AgentOutcome& outcome() { return m_outcome; }

private:
  bool run_calls();
  std::pair<std::string, bool> execute(const ToolCall& call, std::string note);
  void warn_about_sub_queries(std::string& output);
  AgentOutcome fallback();
  AgentOutcome stop(AgentStop stop, Error error, bool report);

  llm::Provider& m_provider;
  const RlmOptions& m_options;
  std::string m_model;     // "provider/model" of the exploring calls
  std::string m_sub_model; // and of the sub-queries
  std::vector<Message>& m_conversation;
  const CancelToken& m_cancel;
  agent::AttemptObserver& m_observer;
  EventSink& m_events;
  SubQueryBudget& m_budget;
  Sandbox& m_sandbox;
  std::string m_language;
  AgentOutcome m_outcome;
  std::vector<TrajectoryStep> m_trajectory;
  int m_counted_calls = 0;
  Usage m_counted_usage;
};

AgentOutcome Attempt::run() {
  llm::ChatRequest request;
  request.model = m_options.model.model;
  request.system = rlm_system_prompt(m_options, m_language);
  request.tools = {code_tool(m_language, m_sandbox.api_description())};
  request.max_tokens = m_options.max_tokens;
  request.temperature = m_options.temperature;
  request.stream = m_options.stream;

  while (true) {
    if (m_cancel.cancelled()) {
      return stop(AgentStop::cancelled, interrupted(), false);
    }
    const int step = ++m_outcome.steps;
    m_events.on_event(agent::model_started_event(step));
    request.messages = m_conversation;
    agent::StepObserver stream(m_events, step);
    auto response = m_provider.chat(request, &stream, m_cancel);
    if (!response) {
      const bool cancelled = response.error().kind == ErrorKind::cancelled || m_cancel.cancelled();
      return stop(cancelled ? AgentStop::cancelled : AgentStop::failed, std::move(response.error()),
                  !cancelled);
    }
    m_outcome.usage += response->usage;
    m_observer.model_call_finished(agent::model_call(step, m_model, *response));
    Message& reply = m_conversation.emplace_back(std::move(response->message));
    reply.role = Role::assistant;
    m_outcome.answer = reply.content;
    if (reply.tool_calls.empty()) {
      m_outcome.stop = AgentStop::answered;
      break;
    }
    if (step >= m_options.settings.max_steps) {
      const std::vector<ToolCall> calls = reply.tool_calls;
      agent::answer_unrun_calls(m_conversation, calls, 0, steps_ran_out(step));
      return fallback();
    }
    if (!run_calls()) {
      return stop(AgentStop::cancelled, interrupted(), false);
    }
  }
  return stop(m_outcome.stop, Error{}, false);
}

// Ends the attempt: `failed` and `cancelled` carry `error` (reported as an event when `report`),
// the others emit agent_finished as the ReAct agent does.
AgentOutcome Attempt::stop(AgentStop stop, Error error, bool report) {
  m_outcome.stop = stop;
  if (stop == AgentStop::failed || stop == AgentStop::cancelled) {
    if (report) {
      m_events.on_event(agent::error_event(m_outcome.steps, error));
    }
    m_outcome.error = std::move(error);
    return m_outcome;
  }
  m_events.on_event(agent::agent_finished_event(m_outcome));
  return m_outcome;
}

// Runs the calls of the assistant message just appended, in order; false when cancelled.
bool Attempt::run_calls() {
  // Copied: appending results may reallocate the conversation under a reference.
  const std::vector<ToolCall> calls = m_conversation.back().tool_calls;
  std::string note = m_conversation.back().content;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const ToolCall& call = calls[i];
    if (m_cancel.cancelled()) {
      agent::answer_unrun_calls(m_conversation, calls, i, "interrupted");
      return false;
    }
    m_events.on_event(agent::tool_started_event(m_outcome.steps, call));
    const auto begin = std::chrono::steady_clock::now();
    auto [content, is_error] = execute(call, std::exchange(note, {}));
    ++m_outcome.tool_calls;
    tools::ToolResult result{.content = std::move(content),
                             .is_error = is_error,
                             .duration = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::steady_clock::now() - begin)};
    m_observer.tool_call_finished(m_outcome.steps, call, result);
    m_conversation.push_back(agent::tool_message(call, std::move(result.content), is_error));
  }
  return !m_cancel.cancelled();
}

// The result of one call (content, is_error). Misuse of the tool is an error result the model
// can correct; it never ends the attempt.
std::pair<std::string, bool> Attempt::execute(const ToolCall& call, std::string note) {
  if (call.name != m_language) {
    return {fmt::format("unknown tool `{}`; the only tool is `{}`, which runs {} code", call.name,
                        m_language, m_language),
            true};
  }
  auto code = code_argument(call);
  if (!code) {
    return {fmt::format("the `{}` tool takes {{\"code\": \"<{} source>\"}}: {}", m_language,
                        m_language, code.error().message),
            true};
  }
  ExecResult result = m_sandbox.execute(*code, m_cancel);
  const bool failed = result.error || result.timed_out || result.out_of_memory;
  std::string output = shown_output(result);
  settle_sub_queries();
  warn_about_sub_queries(output);
  m_trajectory.push_back(
      TrajectoryStep{m_outcome.steps, std::move(note), std::move(*code), output, failed});
  return {std::move(output), failed};
}

// Sub-queries cost tokens: they count into the outcome, and are reported as one model call per
// batch on the sub-query model, so that the run's budgets and record see them at their price.
void Attempt::settle_sub_queries() {
  const int calls = m_budget.used();
  const Usage usage = m_budget.usage();
  const Usage added = minus(usage, m_counted_usage);
  if (calls == m_counted_calls && added.input_tokens == 0 && added.output_tokens == 0) {
    return;
  }
  const agent::ModelCall batch{.step = m_outcome.steps,
                               .model = m_sub_model,
                               .usage = added,
                               .requests = calls - m_counted_calls};
  m_outcome.usage += added;
  m_counted_calls = calls;
  m_counted_usage = usage;
  m_observer.model_call_finished(batch);
}

void Attempt::warn_about_sub_queries(std::string& output) {
  const SubQueryBudget::Notice notice = m_budget.take_notice();
  if (notice == SubQueryBudget::Notice::none) {
    return;
  }
  const int used = m_budget.used();
  const int limit = m_budget.limit();
  std::string text = fmt::format("[warning: {} of {} sub-queries used]", used, limit);
  if (notice == SubQueryBudget::Notice::spent) {
    text = fmt::format("[warning: {} of {} sub-queries used; llm_query refuses from now on, so "
                       "answer with what you have]",
                       used, limit);
  }
  output += "\n" + text;
  m_events.on_event(
      Event{.step = m_outcome.steps,
            .payload = event::BudgetWarning{.budget = BudgetKind::sub_queries,
                                            .percent = event::budget_percent(used, limit),
                                            .used = static_cast<double>(used),
                                            .limit = static_cast<double>(limit)}});
}

// The steps ran out with tool calls pending: one call without tools over the record salvages
// the best answer it supports. Its answer ends the attempt `answered`, so the outer loop
// verifies it like any other (a `max_steps` stop is retried unverified).
AgentOutcome Attempt::fallback() {
  const int budget = m_options.settings.max_steps;
  m_events.on_event(agent::warning_event(
      m_outcome.steps, fmt::format("{}; asking for a final answer from the record of {} executions",
                                   steps_ran_out(budget), m_trajectory.size())));
  if (m_cancel.cancelled()) {
    return stop(AgentStop::cancelled, interrupted(), false);
  }
  const std::vector<Message> messages = {
      Message{.role = Role::user,
              .content = fallback_user_message(
                  m_conversation, m_options,
                  render_trajectory(m_trajectory, m_options.fallback_trajectory_chars))}};
  llm::ChatRequest request;
  request.model = m_options.model.model;
  request.system = fallback_system_prompt(m_options);
  request.messages = messages;
  request.max_tokens = m_options.max_tokens;
  request.temperature = m_options.temperature;
  request.stream = m_options.stream;

  const int step = ++m_outcome.steps;
  m_events.on_event(agent::model_started_event(step));
  agent::StepObserver stream(m_events, step);
  auto response = m_provider.chat(request, &stream, m_cancel);
  const auto why_failed = [budget](std::string_view why) {
    return fmt::format("{} and the fallback extraction failed: {}", steps_ran_out(budget), why);
  };
  if (!response) {
    Error error = std::move(response.error());
    if (error.kind == ErrorKind::cancelled || m_cancel.cancelled()) {
      return stop(AgentStop::cancelled, std::move(error), false);
    }
    error.message = why_failed(error.message);
    return stop(AgentStop::failed, std::move(error), true);
  }
  m_outcome.usage += response->usage;
  m_observer.model_call_finished(agent::model_call(step, m_model, *response));
  std::string answer = std::string(trim(response->message.content));
  if (answer.empty()) {
    Error error;
    error.kind = ErrorKind::provider;
    error.message = why_failed(fmt::format("the model's answer was empty (stop reason: {})",
                                           llm::to_string(response->stop_reason)));
    return stop(AgentStop::failed, std::move(error), true);
  }
  Message reply;
  reply.role = Role::assistant;
  reply.content = answer;
  m_conversation.push_back(std::move(reply));
  m_outcome.answer = std::move(answer);
  return stop(AgentStop::answered, Error{}, false);
}

} // namespace

RlmAgent::RlmAgent(llm::Provider& provider, SandboxFactory sandboxes, SubQueryFn sub_query,
                   RlmOptions options)
    : m_provider(provider), m_sandboxes(std::move(sandboxes)), m_sub_query(std::move(sub_query)),
      m_options(std::move(options)) {}

agent::AgentOutcome RlmAgent::run(std::vector<Message>& conversation, const CancelToken& cancel,
                                  agent::AttemptObserver& observer, EventSink& events) {
  SubQueryBudget budget(m_sub_query, m_options.settings.max_sub_queries, cancel);
  std::unique_ptr<Sandbox> sandbox = m_sandboxes ? m_sandboxes(budget.wrap()) : nullptr;
  if (!sandbox) {
    AgentOutcome outcome;
    outcome.error = Error{};
    outcome.error->kind = ErrorKind::internal;
    outcome.error->message = "the RLM agent has no sandbox: its factory returned none";
    events.on_event(agent::error_event(0, *outcome.error));
    return outcome;
  }
  Attempt attempt(m_provider, m_options, conversation, cancel, observer, events, budget, *sandbox);
  AgentOutcome outcome = attempt.run();
  // Destroying the sandbox ends anything it still runs; what that cost counts too.
  sandbox.reset();
  attempt.settle_sub_queries();
  outcome.usage = attempt.outcome().usage;
  return outcome;
}

} // namespace ralph::rlm
