#include "ralph/verify/evidence_verifier.h"

#include "check_command.h"

#include "ralph/core/json.h"
#include "ralph/verify/completion_marker.h"
#include "ralph/verify/output_excerpt.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <optional>

namespace ralph::verify {
namespace {

// The command line a shell-like tool ran: its `command` argument.
std::optional<std::string> shell_command_of(const ToolRecord& call) {
  const auto args = parse_json(call.arguments, "tool arguments");
  if (args && args->is_object() && args->contains("command") && (*args)["command"].is_string()) {
    return (*args)["command"].get<std::string>();
  }
  return std::nullopt;
}

// What a call ran, for messages: its command line (the one inside `bash -lc '…'`), else its raw
// arguments.
std::string command_of(const ToolRecord& call) {
  const auto command = shell_command_of(call);
  return command ? inner_command_line(*command) : call.arguments;
}

// What the tool answered to `call`, from this attempt's messages.
std::string_view result_of(const Attempt& attempt, const ToolRecord& call) {
  for (std::size_t i = attempt.attempt_begin; i < attempt.conversation.size(); ++i) {
    const Message& message = attempt.conversation[i];
    if (message.role == Role::tool && message.tool_call_id == call.id) {
      return message.content;
    }
  }
  return {};
}

constexpr std::size_t k_excerpt_chars = 2000;

Verdict verdict(Outcome result, Category category, std::string feedback) {
  return Verdict{.verifier = "evidence",
                 .result = result,
                 .category = std::move(category),
                 .feedback = std::move(feedback)};
}

} // namespace

std::string EvidenceVerifier::what_counts() const {
  const std::string tools = fmt::format("{}", fmt::join(m_settings.tools, " or "));
  if (!m_verify_commands.empty()) {
    return fmt::format("{} run of `{}` itself (not a command that mentions it, not in a pipe or "
                       "after `;`)",
                       tools, fmt::join(m_verify_commands, "` or `"));
  }
  return fmt::format("{} call running a check: a command matching `{}` (alone, or after `cd DIR "
                     "&&`; not in a pipe, after `;` or with `||`)",
                     tools, fmt::join(m_settings.commands, "`, `"));
}

EvidenceVerifier::EvidenceVerifier(EvidenceSettings settings,
                                   std::vector<std::string> verify_commands)
    : m_settings(std::move(settings)), m_verify_commands(std::move(verify_commands)) {}

std::optional<std::string> EvidenceVerifier::counts_as_evidence(const ToolRecord& call) const {
  if (std::find(m_settings.tools.begin(), m_settings.tools.end(), call.name) ==
      m_settings.tools.end()) {
    return std::nullopt;
  }
  const std::optional<std::string> command = shell_command_of(call);
  if (!m_verify_commands.empty()) {
    const auto run = std::find_if(
        m_verify_commands.begin(), m_verify_commands.end(),
        [&](const std::string& wanted) { return command && runs_command(*command, wanted); });
    if (run == m_verify_commands.end()) {
      return std::nullopt;
    }
    return fmt::format("a run of the verify command `{}`", *run);
  }
  if (!command) {
    // A trusted tool that takes no command line is a check by itself.
    return fmt::format("a call of the trusted tool {}", call.name);
  }
  const auto pattern = std::find_if(
      m_settings.commands.begin(), m_settings.commands.end(),
      [&](const std::string& wanted) { return matches_check_pattern(*command, wanted); });
  if (pattern == m_settings.commands.end()) {
    return std::nullopt;
  }
  return fmt::format("matches the evidence.commands pattern `{}`", *pattern);
}

Verdict EvidenceVerifier::verify(const Attempt& attempt, const CancelToken&) {
  const auto started = std::chrono::steady_clock::now();
  const auto finish = [&](Verdict out) {
    out.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count();
    return out;
  };
  if (!scan_completion_marker(attempt.raw_answer, m_settings.marker).claimed) {
    return finish(verdict(Outcome::fail, Category::incomplete,
                          fmt::format("The answer does not claim completion: it does not end "
                                      "with the completion marker {} on a line of its own. Keep "
                                      "working; when a check passes after your last change, end "
                                      "with the marker.",
                                      m_settings.marker)));
  }
  if (!m_settings.require) {
    return finish(
        verdict(Outcome::pass, Category::none, "completion claimed; evidence not required"));
  }

  const auto& calls = attempt.tools;
  std::optional<std::string> why;
  const auto last_evidence = std::find_if(calls.rbegin(), calls.rend(), [&](const ToolRecord& c) {
    why = counts_as_evidence(c);
    return why.has_value();
  });
  if (last_evidence == calls.rend()) {
    return finish(verdict(Outcome::fail, Category::no_evidence,
                          fmt::format("Completion was claimed without evidence: no {} in this "
                                      "attempt. Run the check, read its result, and claim "
                                      "completion only when it passes.",
                                      what_counts())));
  }
  const ToolRecord& evidence = *last_evidence;
  // Changes made by the evidence call itself (build outputs, caches) do not make it stale.
  const auto later = last_evidence.base(); // the first call after the evidence
  const auto change =
      std::find_if(later, calls.end(), [](const ToolRecord& c) { return c.changed_workspace; });

  Verdict out;
  CommandEvidence record;
  record.command = command_of(evidence);
  record.exit_code = evidence.exit_code;
  record.duration_ms = evidence.duration_ms;
  record.output = std::string(result_of(attempt, evidence));
  record.excerpt = excerpt_failures(record.output, k_excerpt_chars);
  record.passes = !evidence.is_error && evidence.exit_code == 0 ? 1 : 0;

  if (change != calls.end()) {
    out = verdict(Outcome::fail, Category::no_evidence,
                  fmt::format("The evidence is stale: `{}` ran before the workspace was changed "
                              "again by {} ({}). Run the check again after your last change.",
                              record.command, change->name, change->arguments.substr(0, 120)));
  } else if (record.passes == 0) {
    out = verdict(Outcome::fail, Category::test_failed,
                  fmt::format("Completion was claimed, but the last check failed: `{}` {}.\n{}",
                              record.command,
                              evidence.exit_code
                                  ? fmt::format("exited with code {}", *evidence.exit_code)
                                  : std::string("has no exit code (the tool reported none)"),
                              record.excerpt));
  } else {
    out = verdict(Outcome::pass, Category::none,
                  fmt::format("completion claimed after `{}` passed (taken as evidence: {})",
                              record.command, *why));
  }
  out.evidence = std::move(record);
  return finish(std::move(out));
}

} // namespace ralph::verify
