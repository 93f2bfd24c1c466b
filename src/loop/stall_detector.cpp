#include "stall_detector.h"

#include "feedback.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

namespace ralph::loop {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// The length of the time unit ("s", "ms", "sec", "seconds", ...) at the start of `text` when it
// is a whole word, else 0.
std::size_t time_unit_at(std::string_view text) {
  for (const std::string_view unit :
       {"seconds", "second", "secs", "sec", "ms", "us", "µs", "ns", "s", "m", "h"}) {
    if (text.starts_with(unit) &&
        (text.size() == unit.size() || !is_word_char(text[unit.size()]))) {
      return unit.size();
    }
  }
  return 0;
}

// A command's output with what differs between two runs of the same failure taken out: the
// durations runners print ("in 0.12s", "(0.00s)", "0.01 sec") become "#s", hex addresses "0x#".
// Counts and names stay, so "3 tests failing" and "2 tests failing" still differ.
std::string without_noise(std::string_view output) {
  std::string out;
  out.reserve(output.size());
  for (std::size_t i = 0; i < output.size();) {
    const bool starts_word = i == 0 || !is_word_char(output[i - 1]);
    if (starts_word && output.substr(i).starts_with("0x")) {
      std::size_t end = i + 2;
      while (end < output.size() && std::isxdigit(static_cast<unsigned char>(output[end])) != 0) {
        ++end;
      }
      out += "0x#";
      i = end;
      continue;
    }
    if (starts_word && is_digit(output[i])) {
      std::size_t end = i;
      while (end < output.size() && (is_digit(output[end]) || output[end] == '.')) {
        ++end;
      }
      const std::size_t space = end < output.size() && output[end] == ' ' ? 1 : 0;
      if (const std::size_t unit = time_unit_at(output.substr(end + space)); unit > 0) {
        out += "#";
        out += output.substr(end + space, unit);
        i = end + space + unit;
        continue;
      }
      out += output.substr(i, end - i);
      i = end;
      continue;
    }
    out += output[i];
    ++i;
  }
  return out;
}

// Verdicts with different failing tests are not the same verdicts, whatever their category; nor
// are failing commands whose output changed where no runner's summary counted the failures
// ("FAIL: 3 tests failing", then 2).
std::string verdicts_signature(const AttemptRecord& attempt) {
  std::vector<std::string> parts;
  for (const auto& verdict : attempt.verdicts) {
    std::string tests;
    if (verdict.tests) {
      std::vector<std::string> failing = verdict.tests->failing;
      std::sort(failing.begin(), failing.end());
      tests = fmt::format("{}|{}", verdict.tests->failed, fmt::join(failing, ","));
    } else if (verdict.evidence && verdict.kind == verify::VerifierKind::command) {
      tests = fmt::format("{}|{}", verdict.evidence->exit_code.value_or(-1),
                          without_noise(verdict.evidence->excerpt));
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
                                  without_noise(verdict.evidence->excerpt)));
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
