#include "ralph/verify/exec_verifier.h"

#include "shell_run.h"

#include "ralph/core/json.h"
#include "ralph/core/text.h"
#include "ralph/core/time.h"
#include "ralph/core/try.h"
#include "ralph/verify/attempt_json.h"
#include "ralph/verify/output_excerpt.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <utility>

namespace ralph::verify {
namespace {

using nlohmann::json;

constexpr std::size_t k_output_limit = 256 * 1024; // a verdict is small; this is for logs
constexpr std::size_t k_quote_bytes = 300;         // of stdout, in a malformed-output message
constexpr std::size_t k_stderr_bytes = 1500;       // of stderr, in any error message

struct ParsedVerdict {
  Outcome result = Outcome::error;
  std::string category;
  std::string feedback;
};

std::string quote(std::string_view text) {
  const std::string_view kept = utf8_prefix(text, k_quote_bytes);
  return fmt::format("`{}`{}", to_valid_utf8(kept), kept.size() < text.size() ? " [...]" : "");
}

// An optional string member: absent and null both mean empty.
Result<std::string> optional_string(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    return std::string();
  }
  if (!it->is_string()) {
    return fail(ErrorKind::parse, fmt::format("\"{}\" must be a string", key));
  }
  return it->get<std::string>();
}

Result<ParsedVerdict> parse_verdict(std::string_view text) {
  auto parsed = parse_json(text, "stdout");
  if (!parsed) {
    // Text that is no JSON at all says so; JSON that ralph refuses (too deep, 1e999) says why.
    return fail(ErrorKind::parse,
                nlohmann::json::accept(text) ? parsed.error().message : "stdout is not JSON");
  }
  if (!parsed->is_object()) {
    return fail(ErrorKind::parse,
                fmt::format("expected a JSON object, got {}", parsed->type_name()));
  }
  auto result = parsed->find("result");
  if (result == parsed->end()) {
    result = parsed->find("verdict");
  }
  if (result == parsed->end()) {
    return fail(ErrorKind::parse, "the object has no \"result\"");
  }
  if (!result->is_string()) {
    return fail(ErrorKind::parse, "\"result\" must be a string");
  }
  ParsedVerdict verdict;
  const std::string value = to_lower_ascii(result->get<std::string>());
  if (value == "pass") {
    verdict.result = Outcome::pass;
  } else if (value == "fail") {
    verdict.result = Outcome::fail;
  } else if (value == "error") {
    verdict.result = Outcome::error;
  } else {
    return fail(ErrorKind::parse,
                fmt::format("\"result\" must be pass, fail or error, got {}", quote(value)));
  }
  TRY_ASSIGN(verdict.category, optional_string(*parsed, "category"));
  TRY_ASSIGN(verdict.feedback, optional_string(*parsed, "feedback"));
  return verdict;
}

// The whole of stdout, or else its last non-empty line, so a program may log before answering.
Result<ParsedVerdict> parse_stdout(std::string_view out) {
  const std::string_view text = trim(out);
  if (text.empty()) {
    return fail(ErrorKind::parse, "it printed nothing on stdout");
  }
  auto whole = parse_verdict(text);
  if (whole) {
    return whole;
  }
  const std::size_t newline = text.rfind('\n');
  if (newline != std::string_view::npos) {
    auto last = parse_verdict(trim(text.substr(newline + 1)));
    if (last) {
      return last;
    }
  }
  return fail(ErrorKind::parse, fmt::format("{}: {}", whole.error().message, quote(text)));
}

std::string with_stderr(std::string message, const std::string& stderr_excerpt) {
  if (stderr_excerpt.empty()) {
    return message;
  }
  return fmt::format("{}\nstderr (the last lines):\n{}", message, stderr_excerpt);
}

} // namespace

ExecVerifier::ExecVerifier(std::string program, const VerifySettings& settings,
                           tools::ProcessRunner& runner)
    : m_program(std::move(program)), m_timeout(settings.exec_timeout), m_runner(runner) {}

std::string ExecVerifier::name() const {
  return "exec: " + m_program;
}

Verdict ExecVerifier::verify(const Attempt& attempt, const CancelToken& cancel) {
  const std::string& program = m_program;
  tools::ProcessSpec spec = shell_spec(program, attempt.workspace, m_timeout);
  spec.output_limit = k_output_limit;
  spec.merge_stderr = false;
  spec.stdin_data = attempt_to_json(attempt);

  Verdict verdict;
  verdict.verifier = name();
  verdict.result = Outcome::error;
  CommandEvidence evidence;
  evidence.command = program;
  evidence.started_at = iso8601_utc(std::chrono::system_clock::now());
  auto process = m_runner.run(spec, cancel);
  evidence.finished_at = iso8601_utc(std::chrono::system_clock::now());
  if (!process) {
    verdict.category = Category::not_runnable;
    verdict.feedback =
        fmt::format("`{}` could not be started: {}", program, process.error().message);
    verdict.evidence = std::move(evidence);
    return verdict;
  }

  evidence.exit_code = process->exit_code;
  evidence.duration_ms = process->duration.count();
  evidence.excerpt = excerpt_failures(process->err_output, k_stderr_bytes);
  evidence.output = to_valid_utf8(process->output);
  if (!process->err_output.empty()) {
    evidence.output += "\n[stderr]\n" + to_valid_utf8(process->err_output);
  }
  verdict.duration_ms = evidence.duration_ms;

  if (const auto problem = could_not_run(*process, program, m_timeout)) {
    verdict.category = problem->category;
    verdict.feedback = with_stderr(problem->message, evidence.excerpt);
  } else if (auto parsed = parse_stdout(process->output)) {
    verdict.result = parsed->result;
    verdict.feedback = std::move(parsed->feedback);
    if (verdict.result != Outcome::pass) {
      verdict.category = parsed->category.empty()
                             ? Category(verdict.result == Outcome::fail ? Category::check_failed
                                                                        : Category::verifier_error)
                             : Category::named(parsed->category);
    }
    evidence.passes = verdict.result == Outcome::pass ? 1 : 0;
  } else {
    verdict.category = Category::malformed;
    const std::string how = process->exit_code == 0
                                ? std::string()
                                : fmt::format(" ended with {} and", describe_exit(*process));
    verdict.feedback =
        with_stderr(fmt::format("`{}`{} gave no verdict: {}", program, how, parsed.error().message),
                    evidence.excerpt);
  }
  verdict.evidence = std::move(evidence);
  return verdict;
}

Result<std::unique_ptr<ExecVerifier>> make_exec_verifier(std::string program,
                                                         const VerifySettings& settings,
                                                         tools::ProcessRunner& runner) {
  if (trim(program).empty()) {
    return fail(ErrorKind::config, "verify exec: the program is empty");
  }
  return std::make_unique<ExecVerifier>(std::move(program), settings, runner);
}

} // namespace ralph::verify
