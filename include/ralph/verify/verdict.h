#pragma once

#include "ralph/core/message.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ralph::verify {

enum class Outcome { pass, fail, error };

const char* to_string(Outcome outcome);

// Verdict categories the loop and the feedback know. Verifiers may use others; these have fixed
// meanings. `blocked` means the goal cannot be reached as asked: the loop stops with that status.
namespace category {
inline constexpr std::string_view goal_missed = "goal_missed";
inline constexpr std::string_view incomplete = "incomplete";
inline constexpr std::string_view rule_violation = "rule_violation";
inline constexpr std::string_view tone_mismatch = "tone_mismatch";
inline constexpr std::string_view refusal = "refusal";
inline constexpr std::string_view test_failed = "test_failed";
inline constexpr std::string_view check_failed = "check_failed";
inline constexpr std::string_view no_evidence = "no_evidence";
inline constexpr std::string_view timeout = "timeout";
inline constexpr std::string_view not_runnable = "not_runnable"; // command not found, spawn error
inline constexpr std::string_view malformed = "malformed";       // unparsable verifier output
inline constexpr std::string_view provider_error = "provider_error";
inline constexpr std::string_view blocked = "blocked";
} // namespace category

// What a command run showed: the runtime's own verify commands, external programs, or the
// trusted tool call an evidence verdict relied on.
struct CommandEvidence {
  std::string command;
  std::optional<int> exit_code; // nullopt: it did not exit normally (timeout, signal, not run)
  std::int64_t duration_ms = 0;
  std::string started_at;  // ISO 8601 UTC
  std::string finished_at; // ISO 8601 UTC
  std::string excerpt;     // what the agent is shown: the failures and the tail, within a budget
  std::string output;      // the whole output (capped very high), for the session record only
  int runs = 1;            // reruns of a flaky command: how many ran and how many passed
  int passes = 0;
};

// One verifier's judgement of one attempt.
struct Verdict {
  std::string verifier; // e.g. "command: make check", "judge", "checks", "evidence"
  Outcome result = Outcome::error;
  std::string category;  // empty on pass
  std::string feedback;  // what to tell the agent (or, for errors, what went wrong)
  std::string reasoning; // how a model verifier got there, for the record (not fed back)
  std::optional<CommandEvidence> evidence;
  Usage usage;       // model tokens this verifier spent (the judge's)
  std::string model; // "provider/model" the usage was spent on, for cost
  std::int64_t duration_ms = 0;
  std::string policy; // for `error`: the policy the loop applied ("fail_open", "fail_closed")
};

} // namespace ralph::verify
