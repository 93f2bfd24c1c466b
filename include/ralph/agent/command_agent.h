#pragma once

#include "ralph/agent/agent.h"
#include "ralph/core/settings.h"
#include "ralph/tools/process_runner.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ralph::agent {

// What an external agent CLI is run with.
struct CommandAgentOptions {
  std::string name;   // "claude", …, or "command" for any program: how it is shown
  AgentPreset preset; // its command lines and output format
  // `preset.command` is {"/bin/sh", "-c", LINE}: placeholders in LINE are shell-quoted.
  bool shell_line = false;
  std::string model;                   // for the preset's model_args; empty: the CLI's default
  std::vector<std::string> extra_args; // added to every command line
  std::filesystem::path workspace;     // where the CLI runs
  std::string ralph_session;           // {ralph_session}
  std::string instructions; // added to every prompt that starts a fresh process (the marker)
  std::chrono::milliseconds timeout{0};      // one attempt; 0: none
  std::chrono::milliseconds idle_timeout{0}; // no output for this long; 0: none
};

// Runs an external agent CLI (Claude Code, Codex, Gemini CLI, aider, goose, opencode, or any
// program) as the inner loop: one process per attempt, in its own process group, its stdout read
// line by line as the preset's format (agent/cli_stream.h) and turned into the facts and events
// the built-in agent reports. The terminal event decides the outcome, never the exit code alone.
// After a failed verdict in feedback mode `append`, an agent that reported its session id is
// resumed with the feedback, so it keeps its context; otherwise a fresh process gets the goal,
// the last answer and the feedback, also written to `.ralph/feedback.md`.
class CommandAgent final : public Agent {
public:
  CommandAgent(tools::ProcessRunner& runner, CommandAgentOptions options);

  AgentOutcome run(std::vector<Message>& conversation, const CancelToken& cancel,
                   AttemptObserver& observer, EventSink& events) override;

  // The CLI's own session id, once it reported one.
  const std::string& cli_session() const { return m_cli_session; }

private:
  tools::ProcessRunner& m_runner;
  CommandAgentOptions m_options;
  std::string m_cli_session;
  int m_runs = 0;         // processes started, by this agent
  Usage m_thread_counted; // of the CLI session's running totals (Codex), what was counted
};

} // namespace ralph::agent
