#include "ralph/verify/command_verifier.h"

#include "output_spill.h"
#include "shell_run.h"

#include "ralph/core/text.h"
#include "ralph/core/time.h"
#include "ralph/verify/junit_report.h"
#include "ralph/verify/output_excerpt.h"
#include "ralph/verify/output_lines.h"
#include "ralph/verify/test_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace ralph::verify {
namespace {

using std::chrono::milliseconds;

// Failing tests named in the feedback when only a JUnit report names them; the rest are counted.
constexpr std::size_t k_listed_report_failures = 20;

// Outputs up to this size are kept whole in the session record; larger ones go whole to a file
// beside the store (Attempt::output_dir) while the runner keeps their head and tail in memory.
constexpr std::size_t k_record_limit = 1024 * 1024;

// `3-command-python3-m-unittest-1f2e3d4c.log`: the attempt, a readable part of the command and
// a hash that tells apart commands that read the same.
std::string output_file_name(int iteration, const std::string& command) {
  std::string slug;
  for (const char c : command) {
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_';
    if (plain) {
      slug += c;
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
    if (slug.size() >= 40) {
      break;
    }
  }
  while (!slug.empty() && slug.back() == '-') {
    slug.pop_back();
  }
  return fmt::format("{}-command-{}-{:08x}.log", iteration, slug,
                     static_cast<std::uint32_t>(std::hash<std::string>{}(command)));
}

// One run with its output read as it streams: failures are looked for in every line, and the
// whole output is kept in a file when it is too large for the record.
struct StreamedRun {
  StreamedRun(std::size_t excerpt_chars, std::filesystem::path file, const Redactor& redactor)
      : excerpt(excerpt_chars), spill(std::move(file), k_record_limit, redactor) {}

  void feed(std::string_view chunk) {
    bytes += chunk.size();
    lines.feed(chunk);
    spill.append(chunk);
  }

  FailureExcerpt excerpt;
  TestSummaryParser summary; // the runners' counts, from the whole output however large
  LineSplitter lines{{&excerpt, &summary}};
  OutputSpill spill;
  std::uint64_t bytes = 0;
};

// "Failing tests in the JUnit reports: a, b and 3 more" for the failing tests the excerpt does not
// show (a command may print nothing and leave the names to its report); empty when it shows all.
std::string report_failures_note(const TestSummary& tests, const std::string& excerpt) {
  std::vector<std::string> unseen;
  for (const std::string& name : tests.failing) {
    if (excerpt.find(name) == std::string::npos) {
      unseen.push_back(name);
    }
  }
  if (unseen.empty()) {
    return {};
  }
  const std::size_t listed = std::min(unseen.size(), k_listed_report_failures);
  std::string note = fmt::format("\nFailing tests in the JUnit reports: {}",
                                 fmt::join(unseen.begin(), unseen.begin() + listed, ", "));
  // A report names at most k_max_test_names; those past it are counted, not named.
  const int unnamed = std::max(0, tests.failed - static_cast<int>(tests.failing.size()));
  const int more = static_cast<int>(unseen.size() - listed) + unnamed;
  if (more > 0) {
    note += fmt::format(" and {} more", more);
  }
  return note;
}

std::string with_output(std::string message, const std::string& excerpt) {
  if (excerpt.empty()) {
    return message + "\n(no output)";
  }
  return fmt::format("{}\nOutput (the failures and the last lines):\n{}", message, excerpt);
}

} // namespace

CommandVerifier::CommandVerifier(std::string command, const VerifySettings& settings,
                                 tools::ProcessRunner& runner, Redactor redactor)
    : m_command(std::move(command)), m_timeout(settings.command_timeout),
      m_excerpt_chars(settings.excerpt_chars), m_runs(std::max(1, settings.runs)),
      m_quorum(std::clamp(settings.quorum, 1, m_runs)), m_junit(settings.junit), m_runner(runner),
      m_redactor(std::move(redactor)) {}

std::string CommandVerifier::name() const {
  return "command: " + m_command;
}

Verdict CommandVerifier::verify(const Attempt& attempt, const CancelToken& cancel) {
  const std::string& command = m_command;
  tools::ProcessSpec spec = shell_spec(command, attempt.workspace, m_timeout);
  spec.output_limit = k_record_limit;
  spec.merge_stderr = true;

  CommandEvidence evidence;
  evidence.command = command;
  evidence.runs = 0;
  const auto started = std::chrono::system_clock::now();
  const auto steady_start = std::chrono::steady_clock::now();
  evidence.started_at = iso8601_utc(started);

  const std::filesystem::path output_file =
      attempt.output_dir.empty()
          ? std::filesystem::path()
          : attempt.output_dir / output_file_name(attempt.iteration, command);
  std::optional<tools::ProcessResult> last;
  std::unique_ptr<StreamedRun> streamed;
  std::optional<RunProblem> problem;
  int failures = 0;
  std::filesystem::file_time_type last_started;
  // Undecided while the quorum can still be reached and has not been yet.
  while (evidence.passes < m_quorum && failures <= m_runs - m_quorum) {
    if (cancel.cancelled()) {
      problem =
          RunProblem{Category::cancelled, fmt::format("`{}` was cancelled before it ran", command)};
      break;
    }
    // The kernel stamps files from a coarse clock: a report written just after the start may
    // look a little older.
    last_started = std::filesystem::file_time_type::clock::now() - std::chrono::seconds(1);
    auto current = std::make_unique<StreamedRun>(m_excerpt_chars, output_file, m_redactor);
    spec.on_output = [run = current.get()](std::string_view chunk) { run->feed(chunk); };
    auto process = m_runner.run(spec, cancel);
    if (process && current->bytes == 0) {
      // A runner that does not stream (a library user's) leaves only what it kept to look at.
      current->lines.feed(process->output);
    }
    current->lines.finish();
    if (!process) {
      problem = RunProblem{Category::not_runnable, fmt::format("`{}` could not be started: {}",
                                                               command, process.error().message)};
      break;
    }
    ++evidence.runs;
    last = std::move(*process);
    streamed = std::move(current);
    problem = could_not_run(*last, command, m_timeout);
    if (problem) {
      break;
    }
    if (last->exit_code == 0) {
      ++evidence.passes;
    } else {
      ++failures;
    }
  }

  const auto finished = std::chrono::system_clock::now();
  evidence.finished_at = iso8601_utc(finished);
  evidence.duration_ms =
      std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - steady_start)
          .count();
  std::optional<TestSummary> tests;
  bool tests_from_reports = false;
  std::string reports_note;
  std::string output_note;
  if (last) {
    tests = streamed->summary.finish();
    if (!m_junit.empty()) {
      auto reports = read_junit_reports(attempt.workspace, m_junit, last_started);
      if (!reports) {
        reports_note = "\nThe JUnit reports could not be read: " + reports.error().message;
      } else if (*reports) {
        tests = std::move(*reports);
        tests_from_reports = true;
      }
    }
    evidence.exit_code = last->exit_code;
    evidence.excerpt = streamed->excerpt.text();
    evidence.output = to_valid_utf8(last->output);
    const auto kept = streamed->spill.finish();
    if (!kept) {
      evidence.output = fmt::format("[{}; the record keeps its head and tail]\n{}",
                                    kept.error().message, evidence.output);
    } else if (!kept->empty()) {
      evidence.output_path = kept->string();
      output_note = fmt::format("\nThe whole output ({} bytes) is in {}", last->output_bytes,
                                evidence.output_path);
    }
  }

  Verdict verdict;
  verdict.verifier = name();
  verdict.duration_ms = evidence.duration_ms;
  const std::string runs_note = m_runs == 1 ? ""
                                            : fmt::format(" (passed {} of {} runs, {} needed)",
                                                          evidence.passes, evidence.runs, m_quorum);
  if (problem) {
    verdict.result = Outcome::error;
    verdict.category = problem->category;
    verdict.feedback =
        last ? with_output(problem->message, evidence.excerpt) + output_note : problem->message;
  } else if (evidence.passes >= m_quorum) {
    verdict.result = Outcome::pass;
    verdict.feedback = fmt::format("`{}` passed{}", command, runs_note);
  } else {
    verdict.result = Outcome::fail;
    verdict.category = Category::test_failed;
    verdict.feedback = with_output(fmt::format("The verification command `{}` failed with {}{}{}.",
                                               command, describe_exit(*last), runs_note,
                                               tests ? " (" + describe_tests(*tests) + ")" : ""),
                                   evidence.excerpt) +
                       (tests_from_reports ? report_failures_note(*tests, evidence.excerpt) : "") +
                       output_note;
  }
  verdict.feedback += reports_note;
  verdict.evidence = std::move(evidence);
  verdict.tests = std::move(tests);
  return verdict;
}

Result<std::unique_ptr<CommandVerifier>> make_command_verifier(std::string command,
                                                               const VerifySettings& settings,
                                                               tools::ProcessRunner& runner,
                                                               Redactor redactor) {
  if (trim(command).empty()) {
    return fail(ErrorKind::config, "verify command: the command is empty");
  }
  if (settings.runs < 1) {
    return fail(ErrorKind::config,
                fmt::format("verify command `{}`: runs must be at least 1, got {}", command,
                            settings.runs));
  }
  if (settings.quorum < 1 || settings.quorum > settings.runs) {
    return fail(ErrorKind::config,
                fmt::format("verify command `{}`: quorum must be between 1 and runs ({}), got {}",
                            command, settings.runs, settings.quorum));
  }
  return std::make_unique<CommandVerifier>(std::move(command), settings, runner,
                                           std::move(redactor));
}

} // namespace ralph::verify
