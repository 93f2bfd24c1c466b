#pragma once

#include "ralph/agent/command_agent.h"
#include "ralph/core/message.h"

#include <optional>
#include <string>
#include <vector>

namespace ralph::agent {

// What the next attempt tells the CLI, from the conversation the loop keeps.
struct CliPrompt {
  std::string text;
  // The text only continues the CLI's own session: what was said since its last answer.
  bool continues = false;
  // Feedback on an earlier attempt is part of it (written to .ralph/feedback.md for a fresh
  // process).
  bool has_feedback = false;
};

// A conversation of user messages only (the goal, or a continuation prompt) is told as it is.
// After an answer, what was said since goes on in the CLI's session when `can_continue`; else a
// fresh process gets the goal, that last answer and what was said since.
CliPrompt next_prompt(const std::vector<Message>& conversation, bool can_continue);

// The values of the placeholders of a command line.
struct CliPlaceholders {
  std::string prompt;
  std::string prompt_file;
  std::string model;
  std::string session;
  std::string ralph_session;
  std::optional<double> budget_usd;
};

// The command line of an attempt: the preset's `command` (or `resume`, when resuming), its
// model and budget arguments when there is a value for them, and the extra arguments, before a
// `resume` subcommand or a trailing `-` or prompt argument; placeholders filled in (shell-quoted
// for a shell line).
std::vector<std::string> cli_argv(const CommandAgentOptions& options, bool resume,
                                  const CliPlaceholders& values);

// Whether the command line takes the prompt itself ({prompt} or {prompt_file}); else it goes
// on stdin.
bool takes_prompt_in_argv(const std::vector<std::string>& argv_template);
bool needs_prompt_file(const std::vector<std::string>& argv_template);

} // namespace ralph::agent
