#include "ralph/agent/command_agent.h"

#include "agent/cli_invocation.h"
#include "agent/cli_setup_hint.h"

#include "ralph/agent/agent_steps.h"
#include "ralph/agent/cli_stream.h"
#include "ralph/core/json.h"
#include "ralph/core/text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>
#include <utility>

namespace ralph::agent {
namespace {

constexpr std::size_t k_kept_output = 64 * 1024; // of each pipe, head and tail
constexpr std::size_t k_tool_output = 30000;     // of a tool result, for the record
constexpr std::size_t k_stderr_lines = 8;        // quoted in an error

std::string describe(std::chrono::milliseconds limit) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(limit).count();
  if (seconds % 3600 == 0 && seconds > 0) {
    return fmt::format("{}h", seconds / 3600);
  }
  if (seconds % 60 == 0 && seconds > 0) {
    return fmt::format("{}m", seconds / 60);
  }
  return fmt::format("{}s", seconds);
}

// The last lines of what the CLI wrote to stderr, for an error message.
std::string stderr_tail(const tools::ProcessResult& result) {
  std::string_view text = trim(result.err_output);
  if (text.empty()) {
    return {};
  }
  std::size_t start = text.size();
  for (std::size_t lines = 0; lines < k_stderr_lines && start > 0; ++lines) {
    const auto newline = text.rfind('\n', start - 1);
    start = newline == std::string_view::npos ? 0 : newline;
  }
  return fmt::format("; its stderr ended: {}", to_valid_utf8(trim(text.substr(start))));
}

// A shell-like call whose exit code the CLI reports: the `shell` tool to the evidence verifier,
// whatever the CLI calls it. Calls without a structured exit code keep their own name, so they
// are never taken as evidence of a check.
ToolCall as_evidence_call(ToolCall call, const CliToolFinished& finished) {
  if (!finished.exit_code) {
    return call;
  }
  const auto args = parse_json(call.arguments, "tool arguments");
  if (args && args->is_object() && args->contains("command") && (*args)["command"].is_string()) {
    call.name = "shell";
  }
  return call;
}

Usage minus(const Usage& a, const Usage& b) {
  Usage out;
  out.input_tokens = std::max<std::int64_t>(0, a.input_tokens - b.input_tokens);
  out.output_tokens = std::max<std::int64_t>(0, a.output_tokens - b.output_tokens);
  out.cache_read_tokens = std::max<std::int64_t>(0, a.cache_read_tokens - b.cache_read_tokens);
  out.cache_write_tokens = std::max<std::int64_t>(0, a.cache_write_tokens - b.cache_write_tokens);
  out.estimated = a.estimated;
  return out;
}

std::vector<std::pair<std::string, std::string>> environment(const AgentPreset& preset) {
  std::vector<std::pair<std::string, std::string>> env;
  for (const std::string& item : preset.env) {
    const auto equals = item.find('=');
    env.emplace_back(item.substr(0, equals), item.substr(equals + 1));
  }
  return env;
}

// Writes `text` to `path` (creating its folder); an error says which file.
Result<void> write_text(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    return fail(ErrorKind::io, fmt::format("cannot write {}", path.string()));
  }
  return {};
}

// One attempt: the process's stream as it comes, turned into the conversation, the facts and
// the events.
class AttemptRun {
public:
  AttemptRun(const CommandAgentOptions& options, std::vector<Message>& conversation,
             AttemptObserver& observer, EventSink& events, std::string& cli_session,
             Usage& thread_counted)
      : m_options(options), m_conversation(conversation), m_observer(observer), m_events(events),
        m_cli_session(cli_session), m_thread_counted(thread_counted),
        m_parser(make_cli_stream_parser(options.preset.format)),
        m_label(fmt::format("{}/{}", options.name,
                            options.model.empty() ? std::string("default") : options.model)) {}

  void feed(std::string_view bytes) {
    m_partial.append(bytes);
    std::size_t start = 0;
    while (true) {
      const auto newline = m_partial.find('\n', start);
      if (newline == std::string::npos) {
        break;
      }
      line(std::string_view(m_partial).substr(start, newline - start));
      start = newline + 1;
    }
    m_partial.erase(0, start);
  }

  void finish() {
    if (!m_partial.empty()) {
      line(m_partial);
      m_partial.clear();
    }
    m_parser->finish(m_facts);
    handle();
    if (!m_pending_text.empty() && !m_result) {
      m_conversation.push_back(Message{.role = Role::assistant, .content = m_pending_text});
    }
  }

  const std::optional<CliResult>& result() const { return m_result; }
  int tool_calls() const { return m_tool_calls; }
  const Usage& usage() const { return m_usage; }
  // The answer: the terminal event's, else the text since the last tool call.
  std::string answer() const {
    if (m_result && !m_result->answer.empty()) {
      return m_result->answer;
    }
    return std::string(trim(m_pending_text));
  }

private:
  void line(std::string_view text) {
    if (!text.empty() && text.back() == '\r') {
      text.remove_suffix(1);
    }
    m_parser->parse_line(text, m_facts);
    handle();
  }

  void handle() {
    for (CliEvent& fact : m_facts) {
      std::visit([this](auto& f) { on(f); }, fact);
    }
    m_facts.clear();
  }

  void on(CliText& text) {
    std::string shown = text.text;
    if (!text.delta && !shown.empty() && shown.back() != '\n') {
      shown += '\n';
    }
    m_pending_text += shown;
    m_events.on_event(Event{.step = 1, .payload = event::TextDelta{.text = std::move(shown)}});
  }
  void on(CliToolStarted& started) {
    m_started.insert(started.call.id);
    m_events.on_event(tool_started_event(1, started.call));
  }
  void on(CliToolFinished& finished) {
    ToolCall call = as_evidence_call(finished.call, finished);
    if (call.id.empty()) {
      call.id = fmt::format("cli_{}", m_tool_calls + 1);
    }
    if (m_started.count(finished.call.id) == 0) {
      // Shown as it ends (opencode prints a call only then): one name and id from start to end.
      m_events.on_event(tool_started_event(1, call));
    }
    ++m_tool_calls;
    tools::ToolResult result;
    result.content = to_valid_utf8(keep_head_and_tail(finished.output, k_tool_output));
    result.is_error = finished.is_error;
    result.exit_code = finished.exit_code;
    m_conversation.push_back(Message{.role = Role::assistant,
                                     .content = std::exchange(m_pending_text, {}),
                                     .tool_calls = {call}});
    m_observer.tool_call_finished(1, call, result);
    m_conversation.push_back(tool_message(call, std::move(result.content), result.is_error));
  }
  void on(CliUsage& usage) {
    Usage delta;
    if (usage.thread_total) {
      delta = minus(usage.usage, m_thread_counted);
      m_thread_counted = usage.usage;
    } else {
      delta = minus(usage.usage, m_process_counted);
      m_process_counted = usage.usage;
    }
    std::optional<double> cost;
    if (usage.cost_usd) {
      cost = std::max(0.0, *usage.cost_usd - m_cost_counted);
      m_cost_counted = *usage.cost_usd;
    }
    m_usage += delta;
    ModelCall call{.step = 1, .model = m_label, .usage = delta, .stop_reason = {}, .requests = 1};
    call.cost_usd = cost;
    m_observer.model_call_finished(call);
  }
  void on(CliSession& session) {
    if (!session.id.empty() && session.id != m_cli_session) {
      // A new CLI session counts from zero.
      m_thread_counted = {};
      m_cli_session = session.id;
    }
    if (!session.model.empty() && m_options.model.empty()) {
      m_label = fmt::format("{}/{}", m_options.name, session.model);
    }
  }
  void on(CliNotice& notice) {
    m_events.on_event(warning_event(1, fmt::format("{}: {}", m_options.name, notice.text)));
  }
  void on(CliResult& result) {
    m_result = std::move(result);
    if (m_result->answer.empty()) {
      m_result->answer = std::string(trim(m_pending_text));
    }
    m_conversation.push_back(Message{.role = Role::assistant, .content = m_result->answer});
    m_pending_text.clear();
  }

  const CommandAgentOptions& m_options;
  std::vector<Message>& m_conversation;
  AttemptObserver& m_observer;
  EventSink& m_events;
  std::string& m_cli_session;
  Usage& m_thread_counted;
  std::unique_ptr<CliStreamParser> m_parser;
  std::string m_label;
  std::string m_partial;
  std::vector<CliEvent> m_facts;
  std::string m_pending_text;
  std::set<std::string> m_started;
  std::optional<CliResult> m_result;
  Usage m_process_counted;
  double m_cost_counted = 0;
  Usage m_usage;
  int m_tool_calls = 0;
};

// The CLI as people call it, for messages about its plan.
std::string_view cli_display_name(CliFormat format, std::string_view name) {
  switch (format) {
  case CliFormat::claude:
    return "Claude Code";
  case CliFormat::codex:
    return "Codex";
  default:
    return name;
  }
}

// Formats whose result line is the CLI's own verdict; for the others (plain text) the exit code
// is all there is.
bool has_terminal_event(CliFormat format) {
  return format != CliFormat::text && format != CliFormat::aider;
}

} // namespace

CommandAgent::CommandAgent(tools::ProcessRunner& runner, CommandAgentOptions options)
    : m_runner(runner), m_options(std::move(options)) {}

AgentOutcome CommandAgent::run(std::vector<Message>& conversation, const CancelToken& cancel,
                               AttemptObserver& observer, EventSink& events) {
  AgentOutcome outcome;
  outcome.steps = 1;
  const AgentPreset& preset = m_options.preset;
  const auto failed = [&](std::string message) {
    outcome.stop = AgentStop::failed;
    Error error;
    error.kind = ErrorKind::subprocess;
    error.message = std::move(message);
    events.on_event(error_event(1, error));
    outcome.error = std::move(error);
    events.on_event(agent_finished_event(outcome));
    return outcome;
  };

  // Resuming needs the CLI's session id, unless the preset resumes by a name ralph chose.
  const bool resumes_by_id =
      std::any_of(preset.resume.begin(), preset.resume.end(),
                  [](const auto& a) { return a.find("{session}") != std::string::npos; });
  const bool can_continue =
      !preset.resume.empty() && m_runs > 0 && (!resumes_by_id || !m_cli_session.empty());
  CliPrompt prompt = next_prompt(conversation, can_continue);
  if (!prompt.continues && !m_options.instructions.empty()) {
    prompt.text += "\n\n" + m_options.instructions;
  }
  const std::vector<std::string>& shape = prompt.continues ? preset.resume : preset.command;
  const std::filesystem::path ralph_dir = m_options.workspace / ".ralph";

  CliPlaceholders values{.prompt = prompt.text,
                         .prompt_file = {},
                         .model = m_options.model,
                         .session = m_cli_session,
                         .ralph_session = m_options.ralph_session,
                         .budget_usd = observer.cost_left_usd()};
  if (needs_prompt_file(shape)) {
    values.prompt_file = (ralph_dir / "prompt.md").string();
    if (auto written = write_text(values.prompt_file, prompt.text); !written) {
      return failed(written.error().message);
    }
  }
  // A continuation prompt (feedback `continue`) is feedback too, though it is all the
  // conversation holds.
  if ((prompt.has_feedback || m_runs > 0) && !prompt.continues) {
    // Agents that keep no session can read what they were told here too.
    if (auto written = write_text(ralph_dir / "feedback.md", prompt.text); !written) {
      return failed(written.error().message);
    }
  }

  AttemptRun attempt(m_options, conversation, observer, events, m_cli_session, m_thread_counted);
  tools::ProcessSpec spec;
  spec.argv = cli_argv(m_options, prompt.continues, values);
  spec.cwd = m_options.workspace;
  spec.timeout = m_options.timeout;
  spec.idle_timeout = m_options.idle_timeout;
  spec.output_limit = k_kept_output;
  spec.stdin_data = takes_prompt_in_argv(shape) ? std::string() : prompt.text;
  spec.env = environment(preset);
  // Some CLIs (opencode) work in $PWD rather than the directory they were started in.
  spec.env.emplace_back("PWD", m_options.workspace.string());
  spec.merge_stderr = false;
  spec.on_output = [&attempt](std::string_view bytes) { attempt.feed(bytes); };

  ++m_runs;
  events.on_event(Event{.step = 1, .payload = event::ModelStarted{.agent = m_options.name}});
  const Result<tools::ProcessResult> ran = m_runner.run(spec, cancel);
  if (!ran) {
    return failed(fmt::format("{} could not be started: {} ({})", m_options.name,
                              ran.error().message, install_hint(spec.argv.front())));
  }
  attempt.finish();
  outcome.tool_calls = attempt.tool_calls();
  outcome.usage = attempt.usage();
  outcome.answer = attempt.answer();
  outcome.agent_session = m_cli_session;
  const tools::ProcessResult& process = *ran;

  if (cancel.cancelled() || process.cancelled) {
    outcome.stop = AgentStop::cancelled;
    outcome.error = interrupted();
    return outcome;
  }
  if (process.timed_out) {
    return failed(fmt::format("{} did not finish within {} (agent.timeout); it was stopped with "
                              "every process it started{}",
                              m_options.name, describe(m_options.timeout), stderr_tail(process)));
  }
  if (process.idle_timed_out) {
    return failed(fmt::format("{} printed nothing for {} (agent.idle_timeout); it was stopped "
                              "with every process it started{}",
                              m_options.name, describe(m_options.idle_timeout),
                              stderr_tail(process)));
  }
  const std::string exit = process.exit_code
                               ? fmt::format("exit code {}", *process.exit_code)
                               : fmt::format("killed by signal {}", process.term_signal);
  const auto& result = attempt.result();
  if (result && !result->ok && result->usage_limit) {
    // Not a failure of the attempt: the loop decides whether to wait for the reset. No error
    // event, so the screen does not show one before it says so.
    outcome.stop = AgentStop::failed;
    outcome.error = Error{.kind = ErrorKind::provider,
                          .message = fmt::format("{} reported that its usage limit is reached: {}",
                                                 m_options.name, result->error)};
    outcome.usage_limit =
        UsageLimit{.agent = std::string(cli_display_name(preset.format, m_options.name)),
                   .message = result->error,
                   .resets_at = result->resets_at};
    events.on_event(agent_finished_event(outcome));
    return outcome;
  }
  if (result && !result->ok) {
    return failed(
        fmt::format("{} reported an error ({}): {}{}", m_options.name, exit,
                    result->error.empty() ? std::string("no reason given") : result->error,
                    stderr_tail(process)));
  }
  if (!result || (!has_terminal_event(preset.format) && process.exit_code != 0)) {
    std::string hint = setup_hint(process.err_output);
    hint = hint.empty() ? std::string() : "; " + hint;
    if (!has_terminal_event(preset.format)) {
      return failed(
          fmt::format("{} failed ({}){}{}", m_options.name, exit, stderr_tail(process), hint));
    }
    return failed(fmt::format("{} ended without its final result event ({}){}{}", m_options.name,
                              exit, stderr_tail(process), hint));
  }
  outcome.stop = AgentStop::answered;
  events.on_event(agent_finished_event(outcome));
  return outcome;
}

} // namespace ralph::agent
