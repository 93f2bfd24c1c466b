#pragma once

#include "ralph/core/enum_names.h"

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

inline constexpr EnumName<Status> k_status_names[] = {
    {Status::active, "active"},
    {Status::completed, "completed"},
    {Status::budget_exhausted, "budget_exhausted"},
    {Status::stalled, "stalled"},
    {Status::blocked, "blocked"},
    {Status::interrupted, "interrupted"},
    {Status::failed, "failed"}};

inline const char* to_string(Status status) {
  return name_of(k_status_names, status);
}
inline std::optional<Status> status_from_string(std::string_view text) {
  return value_of(k_status_names, text);
}

// The process exit code documented for each terminal status (docs/manual/exit-codes.md).
int exit_code(Status status);

} // namespace ralph
