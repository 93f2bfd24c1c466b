#pragma once

#include "ralph/core/message.h"
#include "ralph/core/outcome.h"
#include "ralph/core/settings.h"
#include "ralph/verify/category.h"
#include "ralph/verify/test_summary.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ralph::verify {

using ralph::Outcome;

// What kind of check a verifier makes; the loop treats its own verify commands' failures apart
// (stall detection), and records show the kind beside the verifier's name.
enum class VerifierKind { command, exec, checks, evidence, judge, protected_paths, custom };
inline constexpr EnumName<VerifierKind> k_verifier_kind_names[] = {
    {VerifierKind::command, "command"}, {VerifierKind::exec, "exec"},
    {VerifierKind::checks, "checks"},   {VerifierKind::evidence, "evidence"},
    {VerifierKind::judge, "judge"},     {VerifierKind::protected_paths, "protected_paths"},
    {VerifierKind::custom, "custom"}};
inline const char* to_string(VerifierKind kind) {
  return name_of(k_verifier_kind_names, kind);
}

// What a command run showed: the runtime's own verify commands, external programs, or the
// trusted tool call an evidence verdict relied on.
struct CommandEvidence {
  std::string command;
  std::optional<int> exit_code; // nullopt: it did not exit normally (timeout, signal, not run)
  std::int64_t duration_ms = 0;
  std::string started_at;  // ISO 8601 UTC
  std::string finished_at; // ISO 8601 UTC
  std::string excerpt;     // what the agent is shown: the failures and the tail, within a budget
  std::string output;      // the whole output for the session record; head and tail when too large
  // The whole output, byte for byte (known secrets replaced), when it was too large for the
  // record: a file beside the session store. Empty when `output` is whole.
  std::string output_path;
  int runs = 1; // reruns of a flaky command: how many ran and how many passed
  int passes = 0;
};

// One verifier's judgement of one attempt.
struct Verdict {
  std::string verifier; // e.g. "command: make check", "judge", "checks", "evidence"
  VerifierKind kind = VerifierKind::custom; // the loop sets it from Verifier::kind()
  Outcome result = Outcome::error;
  Category category;     // none on pass
  std::string feedback;  // what to tell the agent (or, for errors, what went wrong)
  std::string reasoning; // how a model verifier got there, for the record (not fed back)
  std::optional<CommandEvidence> evidence;
  // What the test runners said, from a command's output (or, for other verifiers, the feedback):
  // the loop's measure of progress between attempts. nullopt: no runner's summary was found.
  std::optional<TestSummary> tests;
  Usage usage;       // model tokens this verifier spent (the judge's)
  std::string model; // "provider/model" the usage was spent on, for cost
  std::int64_t duration_ms = 0;
  std::optional<ErrorPolicy> policy; // for `error`: the policy the loop applied
};

} // namespace ralph::verify
