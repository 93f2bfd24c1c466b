#include "stall_detector.h"

#include "feedback.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace ralph::loop {
namespace {

// Verdicts with different failing tests are not the same verdicts, whatever their category.
std::string verdicts_signature(const AttemptRecord& attempt) {
  std::vector<std::string> parts;
  for (const auto& verdict : attempt.verdicts) {
    std::string tests;
    if (verdict.tests) {
      std::vector<std::string> failing = verdict.tests->failing;
      std::sort(failing.begin(), failing.end());
      tests = fmt::format("{}|{}", verdict.tests->failed, fmt::join(failing, ","));
    }
    parts.push_back(fmt::format("{}|{}|{}|{}", verdict.verifier, to_string(verdict.result),
                                verdict.category.name(), tests));
  }
  std::sort(parts.begin(), parts.end());
  return fmt::format("{}", fmt::join(parts, "\n"));
}

// The failing commands with what they showed; empty when no command failed.
std::string command_failures(const AttemptRecord& attempt) {
  std::vector<std::string> parts;
  for (const auto& verdict : attempt.verdicts) {
    if (verdict.evidence && verdict_failed(verdict) &&
        verdict.kind == verify::VerifierKind::command) {
      parts.push_back(fmt::format("{}|{}|{}", verdict.verifier,
                                  verdict.evidence->exit_code.value_or(-1),
                                  verdict.evidence->excerpt));
    }
  }
  std::sort(parts.begin(), parts.end());
  return fmt::format("{}", fmt::join(parts, "\n"));
}

} // namespace

bool StallDetector::made_progress(const AttemptRecord& attempt) {
  std::optional<int> failing;
  std::set<std::string> names;
  for (const auto& verdict : attempt.verdicts) {
    if (verdict.tests) {
      failing = failing.value_or(0) + verdict.tests->failed;
      names.insert(verdict.tests->failing.begin(), verdict.tests->failing.end());
    }
  }
  if (!failing) {
    return false;
  }
  const bool fewer = m_failing_tests && *failing < *m_failing_tests;
  const bool shrank =
      m_failing_tests && names.size() < m_failing_names.size() &&
      std::includes(m_failing_names.begin(), m_failing_names.end(), names.begin(), names.end());
  m_failing_tests = failing;
  m_failing_names = std::move(names);
  return fewer || shrank;
}

std::optional<std::string> StallDetector::observe(const AttemptRecord& attempt) {
  const std::string signature =
      std::string(trim(attempt.answer)) + "\n--\n" + verdicts_signature(attempt);
  const bool repeated = m_last_signature && *m_last_signature == signature;
  m_last_signature = signature;
  const std::string failures = command_failures(attempt);
  if (made_progress(attempt)) {
    m_command_failures = failures;
    m_same_command_failures = failures.empty() ? 0 : 1;
    return std::nullopt;
  }
  if (repeated) {
    return "two attempts in a row gave the same answer and the same verdicts";
  }

  if (failures.empty() || failures != m_command_failures) {
    m_command_failures = failures;
    m_same_command_failures = failures.empty() ? 0 : 1;
    return std::nullopt;
  }
  if (++m_same_command_failures >= m_stall_after) {
    return fmt::format("the verify commands failed the same way in {} attempts in a row",
                       m_same_command_failures);
  }
  return std::nullopt;
}

} // namespace ralph::loop
