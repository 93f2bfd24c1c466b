#pragma once

#include <optional>
#include <string_view>

namespace ralph {

// Where a session stands. Every status but `active` is terminal.
enum class Status {
  active,
  completed,        // verified, or finished with no verifier configured
  budget_exhausted, // iterations, steps, tokens, cost or time ran out first
  stalled,          // attempts stopped making progress
  blocked,          // the agent or a verifier says it cannot proceed
  interrupted,      // Ctrl-C or a signal
  failed,           // a runtime error, e.g. a provider error after retries
};

const char* to_string(Status status);
std::optional<Status> status_from_string(std::string_view text);

// The process exit code documented for each terminal status (README "Exit codes").
int exit_code(Status status);

} // namespace ralph
