#pragma once

#include "ralph/tools/process_runner.h"
#include "ralph/verify/verdict.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

// What the command and external-program verifiers share: how a shell command is run and how a
// run that says nothing about the attempt is told apart from a result.
namespace ralph::verify {

// `/bin/sh -c COMMAND` in `workspace`, with pagers and credential prompts turned off so a command
// cannot sit waiting for a terminal until its timeout.
tools::ProcessSpec shell_spec(const std::string& command, const std::filesystem::path& workspace,
                              std::chrono::milliseconds timeout);

// Why a finished run could not judge anything.
struct RunProblem {
  Category category;   // not_runnable, timeout or cancelled
  std::string message; // a sentence naming `command`
};

// Set when the command timed out, was cancelled, was not found (exit 127 with "not found" in its
// output) or not executable (exit 126); nullopt when it ran to an exit status or a signal.
std::optional<RunProblem> could_not_run(const tools::ProcessResult& result,
                                        std::string_view command,
                                        std::chrono::milliseconds timeout);

// "exit code 2" or "signal 11 (SIGSEGV)".
std::string describe_exit(const tools::ProcessResult& result);

// "600" or "1.5": seconds for messages.
std::string format_seconds(std::chrono::milliseconds duration);

} // namespace ralph::verify
